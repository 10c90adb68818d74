//! Several files read as one trace (`tracescope view A B`): each file's processes,
//! ids and diagnostics kept apart; times moved exactly as asked.

use tracescope_format::DiagKind;
use tracescope_model::{Align, FileInput, LoadOptions, PidK, Trace};
use tracescope_testdata::fixture_text;

fn input(name: &str, offset_ns: i64) -> FileInput {
    FileInput {
        name: name.to_string(),
        text: Box::new(fixture_text(&format!("multi/{name}"))),
        bytes: 0,
        offset_ns,
        diagnostics: Default::default(),
    }
}

fn load(align: Align, offsets: [i64; 2]) -> Trace {
    let files = vec![
        input("rank0.json", offsets[0]),
        input("rank1.json", offsets[1]),
    ];
    Trace::from_json_files(files, align, &LoadOptions::default()).unwrap()
}

/// (process name, pid, labels) per process, in table order.
fn processes(t: &Trace) -> Vec<(String, String, String)> {
    t.tables
        .processes
        .iter()
        .map(|p| {
            (
                t.str(p.name).to_string(),
                t.pid_text(p.pid).into_owned(),
                t.str(p.labels).to_string(),
            )
        })
        .collect()
}

/// (process name, slice name, ts, dur, args) of every slice.
fn slices(t: &Trace) -> Vec<(String, String, i64, i64, String)> {
    let s = &t.tables.slices;
    (0..s.len())
        .map(|i| {
            let th = t.thread(s.thread(i));
            (
                t.str(t.process(th.process).name).to_string(),
                t.name(s.name[i]).to_string(),
                s.ts(i),
                s.dur(i),
                t.raw(s.args(i)).to_string(),
            )
        })
        .collect()
}

#[test]
fn colliding_pids_stay_apart_and_are_named_after_their_file() {
    let t = load(Align::Own, [0, 0]);
    assert_eq!(
        processes(&t),
        [
            ("trainer (rank0.json)".into(), "1".into(), "".into()),
            ("rank0.json".into(), "2".into(), "".into()),
            (
                "trainer (rank1.json)".into(),
                "3".into(),
                "pid 1 in rank1.json".into()
            ),
        ]
    );
    let mut got = slices(&t);
    got.sort_by_key(|s| s.2);
    assert_eq!(
        got,
        [
            (
                "trainer (rank0.json)".into(),
                "step".into(),
                1_000_000,
                100_000,
                r#"{"rank":0}"#.into()
            ),
            (
                "rank0.json".into(),
                "load".into(),
                1_020_000,
                10_000,
                "".into()
            ),
            (
                "trainer (rank1.json)".into(),
                "step".into(),
                5_000_500,
                200_000,
                r#"{"rank":1}"#.into()
            ),
        ]
    );
    // Ids are the file's own: rank1's flow end does not join rank0's flow, and the
    // two async operations with id 0x1 stay two.
    assert_eq!(t.tables.flows.len(), 1);
    assert_eq!(t.diagnostics.count(DiagKind::UnboundFlow), 1);
    let a = &t.tables.async_slices;
    let mut spans: Vec<(i64, i64)> = (0..a.ts.len()).map(|i| (a.ts[i], a.dur[i])).collect();
    spans.sort();
    assert_eq!(spans, [(1_000_000, 50_000), (5_000_500, 99_500)]);
    // Each file's diagnostics name it; the event as written comes from its file.
    let unmatched = t.diagnostics.get(DiagKind::UnmatchedEnd).unwrap();
    assert_eq!(unmatched.count, 1);
    assert!(
        unmatched.example.starts_with("rank1.json: "),
        "{}",
        unmatched.example
    );
    assert_eq!(
        t.event_text(unmatched.offset),
        r#"{"ph":"E","pid":1,"tid":1,"name":"late","ts":5300}"#
    );
    assert_eq!(t.info.start_ns, Some(1_000_000));
    assert_eq!(t.info.events, 14);
    // Top-level keys of both files are kept.
    let meta: Vec<(&str, String)> = t
        .info
        .metadata
        .iter()
        .map(|(k, v)| (k.as_str(), t.raw(*v).into_owned()))
        .collect();
    assert_eq!(
        meta,
        [
            ("otherData", r#"{"rank":0}"#.to_string()),
            ("otherData", r#"{"rank":1}"#.to_string())
        ]
    );
}

#[test]
fn align_start_and_offsets_move_times_to_the_nanosecond() {
    let step1 = |t: &Trace| {
        let s = &t.tables.slices;
        let i = (0..s.len())
            .find(|&i| t.raw(s.args(i)) == r#"{"rank":1}"#)
            .unwrap();
        (s.ts(i), s.dur(i))
    };
    // rank1's first event (5000.5 us) moves onto rank0's (1000 us).
    let t = load(Align::Start, [0, 0]);
    assert_eq!(step1(&t), (1_000_000, 200_000));
    assert_eq!(t.files()[1].shift_ns, -4_000_500);
    // Then 1.5 ms later; rank0 stays where it was.
    let t = load(Align::Start, [0, 1_500_000]);
    assert_eq!(step1(&t), (2_500_000, 200_000));
    assert_eq!(slices(&t).iter().filter(|s| s.2 == 1_000_000).count(), 1);
    // Own clocks, rank0 2 ms earlier and rank1 1 ns later.
    let t = load(Align::Own, [-2_000_000, 1]);
    assert_eq!(step1(&t), (5_000_501, 200_000));
    assert_eq!(t.info.start_ns, Some(-1_000_000));
    let a = &t.tables.async_slices;
    let mut starts: Vec<i64> = a.ts.clone();
    starts.sort();
    assert_eq!(starts, [-1_000_000, 5_000_501]);
    // Process pids and labels do not depend on time.
    assert_eq!(processes(&t)[2].1, "3");
    assert_eq!(
        t.tables
            .threads
            .iter()
            .map(|th| t.pid_text(th.tid).into_owned())
            .collect::<Vec<_>>(),
        ["1", "2", "1"]
    );
    assert!(matches!(t.tables.processes[2].pid, PidK::Int(_)));
}
