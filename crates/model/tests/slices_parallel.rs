//! The slice step runs each thread on whichever core is free, largest thread
//! first, reading the records where the parts hold them. Its table must be the
//! one a sequential build makes: the same rows in the same order, the same
//! tracks and the same diagnostics, whatever the parts and the number of cores.

mod common;

use common::{diag_kinds, slices, SliceRow};
use tracescope_format::json::ReadOptions;
use tracescope_model::{Cell, LoadOptions, Trace};

/// One thread's events: `reps` rounds of nesting, an improper overlap, an end
/// whose name does not match, `X` written out of order and a `ui-nest` pair,
/// then a `B` that never ends and an `X` without a duration.
fn thread_events(pid: u32, tid: u32, reps: u32) -> Vec<String> {
    let ev = |ph: &str, name: &str, ts: u32, extra: &str| {
        format!(r#"{{"ph":"{ph}","name":"{name}","ts":{ts},"pid":{pid},"tid":{tid}{extra}}}"#)
    };
    let mut out = Vec::new();
    for rep in 0..reps {
        let t = rep * 100;
        out.push(ev("B", "outer", t, r#","tts":5,"args":{"b":1}"#));
        out.push(ev(
            "X",
            "child",
            t + 1,
            &format!(r#","dur":2,"args":{{"i":{rep}}}"#),
        ));
        out.push(ev("E", "outer", t + 10, r#","tts":9,"args":{"e":2}"#));
        out.push(ev("X", "ov1", t + 20, r#","dur":10"#));
        out.push(ev("X", "ov2", t + 25, r#","dur":10"#));
        out.push(ev("B", "a", t + 40, ""));
        out.push(ev("E", "b", t + 45, ""));
        out.push(ev("X", "late", t + 50, r#","dur":1"#));
        out.push(ev("X", "early", t + 48, r#","dur":1"#));
        out.push(ev("B", "ui", t + 60, r#","args":{"ui-nest":1}"#));
        out.push(ev("E", "ui", t + 70, r#","args":{"ui-nest":1}"#));
    }
    let end = reps * 100;
    out.push(ev("B", "open", end, ""));
    out.push(ev("X", "nodur", end + 5, ""));
    out.push(ev("i", "last", end + 50, r#","s":"t""#));
    out
}

/// Reps of thread `k` of `threads`: the first holds most of the slices (a main
/// thread), the others few.
fn reps(k: u32) -> u32 {
    if k == 0 {
        300
    } else {
        1 + k % 5
    }
}

/// `threads` threads over three processes, their events interleaved in the file
/// (so every part holds records of many threads).
fn trace(threads: u32) -> String {
    let mut per: Vec<std::vec::IntoIter<String>> = (0..threads)
        .map(|k| thread_events(1 + k % 3, 100 + k, reps(k)).into_iter())
        .collect();
    let mut all = Vec::new();
    loop {
        let before = all.len();
        for it in &mut per {
            all.extend(it.next());
        }
        if all.len() == before {
            break;
        }
    }
    format!("[{}]", all.join(",\n"))
}

/// `json` loaded on `cores` worker threads, cut into parts of `chunk_bytes`.
fn load(json: &str, cores: usize, chunk_bytes: usize) -> Trace {
    let opts = LoadOptions {
        read: ReadOptions {
            threads: cores,
            chunk_bytes,
        },
        ..Default::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cores)
        .build()
        .unwrap();
    pool.install(|| {
        Trace::from_json(Box::new(json.to_string()), json.len() as u64, &opts).expect("loads")
    })
}

fn assert_same(a: &Trace, b: &Trace, what: &str) {
    assert_eq!(a.diagnostics, b.diagnostics, "{what}");
    assert_eq!(a.tables.slices.tracks, b.tables.slices.tracks, "{what}");
    for table in ["slices", "args", "threads", "instants"] {
        let (ra, rb) = (a.rows(table).unwrap(), b.rows(table).unwrap());
        assert!(ra.rows == rb.rows, "{what}: table {table} differs");
    }
}

#[test]
fn parallel_slice_step_equals_the_sequential_one() {
    let threads = 40;
    let json = trace(threads);
    let one = load(&json, 1, 1 << 30);
    let total_reps: u32 = (0..threads).map(reps).sum();

    // Exact counts from the construction: 8 slices a rep (outer, child, ov1, ov2,
    // a, late, early, ui) and 2 a thread that never finish.
    let s = &one.tables.slices;
    assert_eq!(s.len() as u32, 8 * total_reps + 2 * threads);
    assert_eq!(
        (0..s.len()).filter(|&i| s.did_not_finish(i)).count() as u32,
        2 * threads
    );
    assert_eq!(
        (0..s.len()).filter(|&i| s.overlap(i)).count() as u32,
        total_reps
    );
    let count = |kind: &str| {
        one.diagnostics
            .sorted()
            .iter()
            .find(|d| d.kind.as_str() == kind)
            .map_or(0, |d| d.count)
    };
    assert_eq!(
        count("overlap"),
        total_reps as u64,
        "{:?}",
        diag_kinds(&one)
    );
    assert_eq!(count("end_name_mismatch"), total_reps as u64);
    // One track per thread and lane, in thread order.
    assert_eq!(s.tracks.len() as u32, 2 * threads);
    assert!(s
        .tracks
        .windows(2)
        .all(|w| (w[0].thread, w[0].lane) < (w[1].thread, w[1].lane)));

    for (cores, chunk) in [(2, 1 << 30), (2, 4096), (4, 512), (3, 97)] {
        let many = load(&json, cores, chunk);
        assert_same(
            &one,
            &many,
            &format!("{cores} cores, parts of {chunk} bytes"),
        );
    }
}

#[test]
fn each_thread_is_built_as_if_alone() {
    let threads = 12;
    let json = trace(threads);
    let all = load(&json, 4, 512);
    let rows = slices(&all);
    for k in 0..threads {
        let alone = format!("[{}]", thread_events(1 + k % 3, 100 + k, reps(k)).join(","));
        let alone = load(&alone, 1, 1 << 30);
        let tid = Cell::Int(100 + k as i64);
        let mine: Vec<SliceRow> = rows.iter().filter(|r| r.5 == tid).cloned().collect();
        assert_eq!(mine, slices(&alone), "thread {k}");
    }
}
