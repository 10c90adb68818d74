//! Every trace loads without panic, with counts that agree with the events read, and
//! the same model whatever way it is read (tiny parallel parts, short runs of events,
//! CTF run by run). Two tiers: the repository's fixtures (always), and the real
//! traces of the external corpus (catapult, speedscope, perfetto) when `../shared` is
//! there.

mod common;

use std::path::{Path, PathBuf};

use tracescope_format::json::ReadOptions;
use tracescope_format::Source;
use tracescope_model::{LoadOptions, Trace};

fn load(p: &Path) -> Trace {
    load_with(p, ReadOptions::default())
}

fn load_with(p: &Path, read: ReadOptions) -> Trace {
    let src = Source::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let source_name = p.file_name().unwrap().to_string_lossy().into();
    Trace::from_source(src, &LoadOptions { source_name, read })
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The corpus traces under `dirs` (relative to `../shared/corpus`), or `None` after
/// one line saying the calling test skipped them.
fn corpus(dirs: &[&str], what: &str) -> Option<(PathBuf, Vec<PathBuf>)> {
    let root = tracescope_testdata::corpus("corpus", what)?;
    let mut all: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| tracescope_testdata::files_under(&root.join(d)))
        .collect();
    all.sort();
    Some((root, all))
}

#[test]
fn every_fixture_loads_with_consistent_counts() {
    let all = tracescope_testdata::fixture_files("");
    consistent_counts(&tracescope_testdata::fixtures(), &all);
}

#[test]
fn every_json_corpus_file_loads_with_consistent_counts() {
    let Some((root, all)) = corpus(
        &["catapult", "speedscope", "perfetto"],
        "counts of every real trace",
    ) else {
        return;
    };
    assert!(all.len() > 80, "corpus not found at {}", root.display());
    consistent_counts(&root, &all);
}

fn consistent_counts(root: &Path, all: &[PathBuf]) {
    for p in all {
        let t = load(p);
        let st = t.stats();
        let phase_total: u64 = st.phases.iter().map(|(_, n)| n).sum();
        assert_eq!(phase_total, st.events, "{}", p.display());
        let n = |ph: &str| st.phases.iter().find(|(q, _)| q == ph).map_or(0, |p| p.1) as usize;
        // Every X makes a slice, every B at most one; ui-nest slices are B too.
        assert!(
            st.slices >= n("X") && st.slices <= n("X") + n("B"),
            "{}: slices {} X {} B {}",
            p.display(),
            st.slices,
            n("X"),
            n("B")
        );
        assert_eq!(st.instants, n("I") + n("i") + n("R"), "{}", p.display());
        assert_eq!(st.metadata_events, n("M"), "{}", p.display());
        if let (Some(a), Some(b)) = (st.start_ns, st.end_ns) {
            assert!(a <= b, "{}", p.display());
        }
        for k in 0..t.tables.slices.len() {
            assert!(
                t.tables.slices.dur(k) >= 0,
                "{}: negative duration",
                p.display()
            );
        }
        // Every table renders.
        for table in tracescope_model::TABLES.iter().map(|t| t.name) {
            t.rows(table).unwrap();
        }
        eprintln!(
            "{:<70} {:>7} events {:>7} slices {:>5} async {:>5} flows {:>6} samples {:>3} diags",
            p.strip_prefix(root).unwrap().display(),
            st.events,
            st.slices,
            st.async_slices,
            st.flows,
            st.samples,
            t.diagnostics.len()
        );
    }
}

/// Both models have the same events, diagnostics and every table, row for row.
fn assert_same_model(what: &Path, a: &Trace, b: &Trace) {
    let what = what.display();
    assert_eq!(a.stats().events, b.stats().events, "{what}");
    assert_eq!(a.diagnostics, b.diagnostics, "{what}");
    for table in tracescope_model::TABLES.iter().map(|t| t.name) {
        let (ra, rb) = (a.rows(table).unwrap(), b.rows(table).unwrap());
        assert!(ra.rows == rb.rows, "{what}: table {table} differs");
    }
}

/// Calls `f` with each trace's path and events (those that read).
fn with_events(all: &[PathBuf], mut f: impl FnMut(&Path, Vec<tracescope_format::Event<'_>>)) {
    let mut read = 0;
    for p in all {
        let src = Source::open(p).unwrap();
        let mut events = Vec::new();
        // Traces without events (the viewer's empty fixture) have nothing to check.
        let read_ok = tracescope_format::json::read_events(src.text(), |ev, _| events.push(ev));
        if read_ok.is_ok() && !events.is_empty() {
            f(p, events);
            read += 1;
        }
    }
    assert!(read > 10, "only {read} traces read");
}

/// The fixtures that hold events (not the raw `.cpuprofile`s).
fn event_fixtures() -> Vec<PathBuf> {
    let mut all = tracescope_testdata::fixture_files("");
    all.retain(|p| !p.to_string_lossy().ends_with(".cpuprofile"));
    all
}

fn catapult(what: &str) -> Option<Vec<PathBuf>> {
    corpus(&["catapult"], what).map(|(_, all)| all)
}

/// Reading in many small parallel parts (some started from wrong guesses of an event
/// boundary and thrown away) gives exactly the model of the default read.
#[test]
fn tiny_parallel_parts_give_the_same_model() {
    same_model_in_tiny_parts(&tracescope_testdata::fixture_files(""), 64);
    if let Some((_, all)) = corpus(&["catapult", "perfetto"], "real traces in tiny parts") {
        same_model_in_tiny_parts(&all, 2048);
    }
}

fn same_model_in_tiny_parts(all: &[PathBuf], chunk_bytes: usize) {
    for p in all {
        let a = load(p);
        let b = load_with(
            p,
            ReadOptions {
                threads: 2,
                chunk_bytes,
            },
        );
        assert_same_model(p, &a, &b);
    }
}

/// A compressed trace is parsed while it is still being decoded (parts read from
/// the decoded prefix): the model is exactly that of the plain file, for zstd and
/// gzip, in tiny parts so that many parts are read early.
#[test]
fn compressed_traces_read_while_decoding_give_the_same_model() {
    compressed_same_model(&tracescope_testdata::fixture_files(""), 64);
    if let Some((_, all)) = corpus(&["catapult", "perfetto"], "real traces decoded while read") {
        compressed_same_model(&all, 2048);
    }
}

fn compressed_same_model(all: &[PathBuf], chunk_bytes: usize) {
    use std::io::Write;
    let read = ReadOptions {
        threads: 2,
        chunk_bytes,
    };
    let opts = tracescope_format::SourceOptions {
        pipeline_from: 0,
        ..Default::default()
    };
    let (mut plain_files, mut pipelined) = (0, 0);
    for p in all {
        let plain = std::fs::read(p).unwrap();
        if tracescope_format::Compression::detect(&plain) != tracescope_format::Compression::None {
            continue;
        }
        plain_files += 1;
        let a = load_with(p, read.clone());
        let gzip = |bytes: &[u8]| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(bytes).unwrap();
            gz.finish().unwrap()
        };
        // Three gzip members, as `cat a.gz b.gz c.gz` makes: the trailer gives only
        // the last one's size.
        let third = plain.len() / 3;
        let members = [
            &plain[..third],
            &plain[third..2 * third],
            &plain[2 * third..],
        ];
        // A streaming compressor (`tool | zstd`) declares no size in the frame.
        let mut streamed = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        streamed.write_all(&plain).unwrap();
        for packed in [
            zstd::bulk::compress(&plain, 1).unwrap(),
            streamed.finish().unwrap(),
            gzip(&plain),
            members.iter().flat_map(|m| gzip(m)).collect(),
        ] {
            let src = tracescope_format::Source::from_bytes_with(packed, &opts).unwrap();
            pipelined += usize::from(src.expected_len().is_some());
            let source_name = p.file_name().unwrap().to_string_lossy().into();
            let b = Trace::from_source(
                src,
                &LoadOptions {
                    source_name,
                    read: read.clone(),
                },
            )
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_same_model(p, &a, &b);
        }
    }
    // Every one of them, whether it declares its size or not.
    assert_eq!(
        pipelined,
        4 * plain_files,
        "inputs decoded in the background, of {plain_files} files in 4 forms"
    );
}

/// A mapped file (its UTF-8 checked in parallel pieces, each piece's pages released
/// once checked, then parts released once parsed; or checked on a thread of its own
/// while parts are read from the checked prefix) gives exactly the model of the same
/// text read into memory, where nothing is ever released.
#[test]
fn a_mapped_file_gives_the_model_of_its_text_in_memory() {
    same_model_mapped_and_in_memory(&tracescope_testdata::fixture_files(""));
    if let Some((_, all)) = corpus(&["catapult", "perfetto"], "real traces mapped") {
        same_model_mapped_and_in_memory(&all);
    }
}

fn same_model_mapped_and_in_memory(all: &[PathBuf]) {
    let mut compared = 0;
    for p in all {
        let bytes = std::fs::read(p).unwrap();
        // Plain UTF-8 without a byte order mark: the text is the file, byte for byte.
        let plain = tracescope_format::Compression::detect(&bytes)
            == tracescope_format::Compression::None
            && !bytes.starts_with(b"\xEF\xBB\xBF");
        let Some(text) = plain.then(|| String::from_utf8(bytes).ok()).flatten() else {
            continue;
        };
        let mapped = Source::open(p).unwrap();
        assert!(mapped.is_mapped() || text.is_empty(), "{}", p.display());
        let a = Trace::from_source(mapped, &LoadOptions::default()).unwrap();
        let len = text.len() as u64;
        let b = Trace::from_json(Box::new(text), len, &LoadOptions::default()).unwrap();
        assert_same_model(p, &a, &b);
        // Checked as UTF-8 while it is read, in tiny parts so that many are read
        // from the checked prefix (a big file's way).
        let opts = tracescope_format::SourceOptions {
            pipeline_from: 0,
            ..Default::default()
        };
        let checking = Source::open_with(p, &opts).unwrap();
        assert!(
            checking.expected_len().is_some() || len == 0,
            "{}",
            p.display()
        );
        let read = ReadOptions {
            threads: 2,
            chunk_bytes: 2048,
        };
        let c = Trace::from_source(
            checking,
            &LoadOptions {
                read,
                ..LoadOptions::default()
            },
        );
        assert_same_model(p, &b, &c.unwrap());
        compared += 1;
    }
    assert!(
        compared > 0,
        "no plain UTF-8 trace among {} files",
        all.len()
    );
}

/// Events from any reader (CTF, ETW) are built in parallel runs: runs of a few events
/// give exactly the model of one run, diagnostics included.
#[test]
fn events_in_short_runs_give_the_same_model() {
    let check = |p: &Path, events: Vec<tracescope_format::Event<'_>>| {
        let a = Trace::from_events_in_runs(events.clone(), "json", 0, usize::MAX);
        let b = Trace::from_events_in_runs(events, "json", 0, 3);
        assert_same_model(p, &a, &b);
    };
    with_events(&event_fixtures(), check);
    if let Some(all) = catapult("real traces in short runs") {
        with_events(&all, check);
    }
}

/// A CTF trace in our layout loads run by run (its decoded events never all held)
/// into exactly the model of its decoded events, whatever the number of runs, and
/// so it does with its args left encoded in the stream files (written as text when
/// a table asks).
#[test]
fn ctf_run_by_run_gives_the_model_of_its_events() {
    ctf_run_by_run(&event_fixtures(), "fixtures");
    if let Some(all) = catapult("real traces as CTF run by run") {
        ctf_run_by_run(&all, "corpus");
    }
}

fn ctf_run_by_run(all: &[PathBuf], tag: &str) {
    use tracescope_format::ctf::{open_dir, write_dir, CtfWriteOptions};
    let dir =
        std::env::temp_dir().join(format!("tracescope-model-ctf-{}-{tag}", std::process::id()));
    with_events(all, |p, events| {
        // A trace of no events (tests/fixtures/timeline/empty.json) writes a CTF
        // directory with no stream: there are no runs to read.
        if events.is_empty() {
            return;
        }
        let _ = std::fs::remove_dir_all(&dir);
        let opts = CtfWriteOptions {
            packet_bytes: 4096,
            ..Default::default()
        };
        write_dir(&dir, &events, &opts).unwrap();
        let files = open_dir(&dir).unwrap();
        let (decoded, diags) = files.events().unwrap();
        let mut want = Trace::from_events(decoded, "ctf", 0);
        want.diagnostics.merge(diags);
        for split in [1, 5] {
            let runs = files.runs().expect("our own layout").split(split);
            assert_same_model(p, &want, &Trace::from_event_runs(&runs, "ctf", 0));
            // Runs are read once: new ones.
            let runs = files.runs().expect("our own layout").split(split);
            let encoded = Trace::from_ctf_runs(runs, 0);
            assert_same_model(p, &want, &encoded);
        }
        // The trace keeps the stream files it reads args from.
        let encoded = Trace::from_ctf_runs(files.runs().expect("our own layout"), 0);
        drop(files);
        assert_same_model(p, &want, &encoded);
    });
    let _ = std::fs::remove_dir_all(&dir);
}
