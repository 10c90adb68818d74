//! The sample table keeps the thread and the profile by runs of rows and only the
//! weights other than 1: every path reads back the rows main's full columns gave.

mod common;
use common::*;
use tracescope_model::tables::{ProfileId, ThreadId};
use tracescope_model::Trace;

/// The `tables --table samples --format csv` line of every sample (in table
/// order: by time, then thread).
fn lines(t: &Trace, table: &str, cols: &[&str]) -> Vec<String> {
    let r = t.rows(table).unwrap();
    (0..r.rows.len())
        .map(|k| {
            let cells: Vec<String> = cols.iter().map(|c| r.get(k, c).to_string()).collect();
            cells.join(",")
        })
        .collect()
}

#[test]
fn threads_profiles_and_weights_read_back() {
    let t = load_fixture("phases/samples-threads-profiles.json");
    let cols = [
        "pid",
        "tid",
        "ts_ns",
        "stack",
        "weight",
        "id",
        "thread_id",
        "frame_id",
        "profile_id",
    ];
    // Main's rows (before the runs), `tables --table samples --format csv`.
    assert_eq!(
        lines(&t, "samples", &cols),
        [
            "1,1,100000,(root),1,0,0,0,0",
            "1,2,120000,loop;step,1,5,1,5,",
            "1,1,150000,(root);gc,1,1,0,3,1",
            "1,2,170000,loop;step,2.5,6,1,5,",
            "1,1,200000,(root);tick,1,2,0,1,0",
            "1,2,220000,loop,1,7,1,4,",
            "1,1,250000,(root);gc,1,3,0,3,1",
            "1,2,260000,loop,1,8,1,4,",
            "1,1,300000,(root);tick,1,4,0,1,0",
        ]
    );
    // By row id: thread 0's five samples (two profiles interleaved, sorted by
    // time), then thread 1's four (`P` events and top-level samples, no profile).
    let s = &t.tables.samples;
    let rows: Vec<_> = (0..s.len())
        .map(|i| {
            (
                s.thread(i).raw(),
                s.ts(i) / 1000,
                s.profile(i).map(ProfileId::raw),
                s.weight(i),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (0, 100, Some(0), 1.0),
            (0, 150, Some(1), 1.0),
            (0, 200, Some(0), 1.0),
            (0, 250, Some(1), 1.0),
            (0, 300, Some(0), 1.0),
            (1, 120, None, 1.0),
            (1, 170, None, 2.5),
            (1, 220, None, 1.0),
            (1, 260, None, 1.0),
        ]
    );
    let threads: Vec<_> = s.threads().collect();
    assert_eq!(
        threads,
        [(ThreadId::new(0), 0..5), (ThreadId::new(1), 5..9)]
    );
}

/// A profile counts its own samples, not the other profile's between its first
/// and its last on the same thread (main said 5 and 3).
#[test]
fn interleaved_profiles_count_their_own_samples() {
    let t = load_fixture("phases/samples-threads-profiles.json");
    let cols = ["tid", "id", "start_ns", "samples", "profile_id"];
    assert_eq!(
        lines(&t, "profiles", &cols),
        ["1,0x1,100000,3,0", "1,0x2,150000,2,1"]
    );
}

/// A stream's samples are its chunks' runs, each rewritten in place: a chunk with
/// more samples than time deltas (or fewer) keeps the pairs only, and the times go
/// on from one chunk to the next over the pairs kept (as main's copy into one
/// vector per stream did).
#[test]
fn chunks_of_unequal_lengths_keep_their_pairs() {
    let chunk = |ts: u32, samples: &str, deltas: &str| {
        format!(
            r#"{{"ph":"P","name":"ProfileChunk","id":"0x5","ts":{ts},"pid":1,"tid":1,"args":{{"data":{{"cpuProfile":{{{}"samples":[{samples}]}},"timeDeltas":[{deltas}]}}}}}}"#,
            if ts == 3 {
                r#""nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"a"}},{"id":3,"parent":2,"callFrame":{"functionName":"b"}}],"#
            } else {
                ""
            }
        )
    };
    let json = format!(
        r#"{{"traceEvents":[{{"ph":"P","name":"Profile","id":"0x5","ts":2,"pid":1,"tid":1,"args":{{"data":{{"startTime":2}}}}}},{},{},{}]}}"#,
        chunk(3, "1,2,3", "40,40"),
        chunk(4, "3,1", "10,10,10"),
        chunk(5, "2", "5"),
    );
    let t = load(&json);
    assert_eq!(
        lines(&t, "samples", &["ts_ns", "stack"]),
        [
            "42000,(root)",
            "82000,(root);a",
            "92000,(root);a;b",
            "102000,(root)",
            "107000,(root);a",
        ]
    );
    assert_eq!(lines(&t, "profiles", &["samples"]), ["5"]);
    // Both chunks are reported (`tables --table diagnostics` lists the two).
    assert!(diag_kinds(&t).contains(&"profile_length_mismatch"));
}

/// Chunks keep their node ids and time deltas in 4 bytes when they all fit: the
/// ones that do not (ids and deltas past `i32`, negative ones, a chunk spanning
/// more than 4.29 s, a chunk read through the tree path) read back exactly, as
/// main's 8-byte vectors gave them (`tables --table samples --format csv`).
#[test]
fn node_ids_and_deltas_past_i32_read_back_exactly() {
    let chunk = |ts: u32, profile: &str, deltas: &str| {
        format!(
            r#"{{"ph":"P","name":"ProfileChunk","id":"0x7","ts":{ts},"pid":1,"tid":1,"args":{{"data":{{"cpuProfile":{{{profile}}},"timeDeltas":[{deltas}]}}}}}}"#
        )
    };
    let nodes = r#""nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":3000000000,"parent":1,"callFrame":{"functionName":"big"}},{"id":-5,"parent":1,"callFrame":{"functionName":"neg"}}],"#;
    let json = format!(
        r#"{{"traceEvents":[{{"ph":"P","name":"Profile","id":"0x7","ts":1,"pid":1,"tid":1,"args":{{"data":{{"startTime":10}}}}}},{},{},{},{},{}]}}"#,
        // Ids past i32 and a delta of i32::MAX + 1 ns.
        chunk(
            2,
            &format!(r#"{nodes}"samples":[1,3000000000,-5]"#),
            "1,-0.5,2147483.648"
        ),
        // 5 s and back.
        chunk(3, r#""samples":[1,1]"#, "5000000,1"),
        // i32::MIN fits; one less does not.
        chunk(4, r#""samples":[-5]"#, "-2147483.648"),
        chunk(5, r#""samples":[1]"#, "-2147483.649"),
        // A sample that is not a node id: read through the tree path.
        chunk(6, r#""samples":[3000000000,"x"]"#, "4294967.296"),
    );
    let t = load(&json);
    assert_eq!(
        lines(&t, "samples", &["ts_ns", "stack", "frame_id"]),
        [
            "10500,(root);big,1",
            "11000,(root),0",
            "2147494148,(root);neg,2",
            "2852527851,(root),0",
            "5000011500,(root);neg,2",
            "7147494148,(root),0",
            "7147495147,(root);big,1",
            "7147495148,(root),0",
        ]
    );
    assert_eq!(diag_kinds(&t), ["bad_profile"]);
}

/// Many threads' samples, some far apart in time (threads starting up to 8 s
/// apart, one before 0 and one near the end of i64's range in ns), some written
/// out of order: each thread's rows are in time order, and every time reads back
/// exactly, by row and in the CSV, the ones kept beside the 4-byte offsets too.
#[test]
fn times_of_many_threads_read_back_exactly() {
    let mut events = Vec::new();
    let mut want: Vec<(i64, u32)> = Vec::new();
    for tid in 1..=60u32 {
        let base_us: i64 = match tid {
            7 => -5_000_000,
            13 => 9_000_000_000_000,
            _ => i64::from(tid % 5) * 2_000_000,
        };
        let mut ts: Vec<i64> = (0..200).map(|j| base_us + j * 137).collect();
        if tid % 3 == 0 {
            ts.reverse();
        }
        for us in ts {
            // A thread's own sub-µs part keeps every time apart from the others.
            events.push(format!(
                r#"{{"ph":"P","name":"s","pid":1,"tid":{tid},"ts":{us}.{tid:03}}}"#
            ));
            let sub = if us < 0 {
                -i64::from(tid)
            } else {
                i64::from(tid)
            };
            want.push((us * 1000 + sub, tid));
        }
    }
    let t = load(&format!(r#"{{"traceEvents":[{}]}}"#, events.join(",")));
    let s = &t.tables.samples;
    assert_eq!(s.len(), want.len());
    // Some rows keep their time whole, not all.
    let wide = s.times().wide_rows();
    assert!(wide > 0 && wide < s.len() / 3, "{wide}");
    for (_, rows) in s.threads() {
        let times: Vec<i64> = rows.clone().map(|i| s.ts(i)).collect();
        assert!(times.is_sorted());
        assert_eq!(times, s.times().iter(rows).collect::<Vec<_>>());
    }
    want.sort_unstable();
    let csv: Vec<String> = want.iter().map(|(ns, tid)| format!("{tid},{ns}")).collect();
    let got = lines(&t, "samples", &["tid", "ts_ns"]);
    assert_eq!(got.len(), csv.len());
    if let Some(k) = (0..csv.len()).find(|&k| got[k] != csv[k]) {
        panic!("row {k}: {} for {}", got[k], csv[k]);
    }
}
