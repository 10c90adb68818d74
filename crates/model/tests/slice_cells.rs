//! The slice table keeps the cells most slices lack apart (the closing `E`'s args,
//! `cname`), thread times only when a trace has some, and depth, offset and `tdur`
//! in narrow cells with the values that do not fit kept whole: every path reads
//! back the rows main's full-width columns gave.

mod common;
use common::*;
use tracescope_model::{Lane, Trace};

/// The `tables --format csv` line of every slice row (in table order), without
/// pid, tid, thread name and arg set id.
fn lines(t: &Trace) -> Vec<String> {
    let r = t.rows("slices").unwrap();
    let cols = [
        "name",
        "cat",
        "ts_ns",
        "dur_ns",
        "depth",
        "self_ns",
        "args",
        "lane",
        "tts_ns",
        "tdur_ns",
        "id",
        "parent_id",
        "thread_id",
    ];
    (0..r.rows.len())
        .map(|k| {
            let cells: Vec<String> = cols.iter().map(|c| r.get(k, c).to_string()).collect();
            cells.join(" ")
        })
        .collect()
}

/// Each row's `cname`, by row id.
fn cnames(t: &Trace) -> Vec<&str> {
    let s = &t.tables.slices;
    (0..s.len()).map(|i| t.str(s.cname(i))).collect()
}

#[test]
fn closing_args_cname_and_thread_times_read_back() {
    let t = load_fixture("phases/slice-sparse-cells.json");
    // Main's rows (before the sparse cells), `tables --table slices --format csv`.
    assert_eq!(
        lines(&t),
        [
            r#"Idle  0 6000000000 0 6000000000  stack 0 5000000000 4  1"#,
            r#"Frame gfx 10000 10000 0 7000 {"n":1,"frames":2} stack 5000 7000 0  0"#,
            r#"Paint gfx 12000 3000 1 3000  stack 6000 2000 1 0 0"#,
            r#"Odd  30000 1000 0 1000  stack 9000 -1000 2  0"#,
            r#"Upload  40000 5000 0 5000 {"ui-nest":1,"bytes":9} ui-nest   3  0"#,
        ]
    );
    assert_eq!(cnames(&t), ["good", "", "", "", "bad"]);
    let s = &t.tables.slices;
    // Thread and lane come from the tracks.
    let tracks: Vec<_> = (0..s.len())
        .map(|i| (s.thread(i).raw(), s.lane(i)))
        .collect();
    assert_eq!(
        tracks,
        [
            (0, Lane::Stack),
            (0, Lane::Stack),
            (0, Lane::Stack),
            (0, Lane::UiNest),
            (1, Lane::Stack)
        ]
    );
    assert_eq!(
        s.threads().map(|th| th.raw()).collect::<Vec<_>>(),
        [0, 0, 0, 0, 1]
    );
    // Offsets of the `B`/`X` events: the raw text of each row is its own event.
    for i in 0..s.len() {
        let raw = t.event_text(s.offset(i));
        assert!(raw.contains(t.str(s.name[i])), "row {i}: {raw}");
    }
    assert_eq!(s.row_bytes(), 68);
}

#[test]
fn a_trace_without_them_gives_the_same_rows_in_fewer_bytes() {
    let t = load_fixture("phases/slice-plain-cells.json");
    assert_eq!(
        lines(&t),
        [
            r#"Idle  0 6000000000 0 6000000000  stack   4  1"#,
            r#"Frame gfx 10000 10000 0 7000 {"n":1} stack   0  0"#,
            r#"Paint gfx 12000 3000 1 3000  stack   1 0 0"#,
            r#"Odd  30000 1000 0 1000  stack   2  0"#,
            r#"Upload  40000 5000 0 5000 {"ui-nest":1,"bytes":9} ui-nest   3  0"#,
        ]
    );
    assert_eq!(cnames(&t), [""; 5]);
    assert_eq!(t.tables.slices.row_bytes(), 56);
}

/// Depths past 65,534 do not fit their 2-byte cells: read back whole.
#[test]
fn depths_past_two_bytes_read_back() {
    const N: usize = 66_000;
    let events: Vec<String> = (0..N)
        .map(|i| {
            format!(
                r#"{{"ph":"X","name":"f","ts":{i},"dur":{},"pid":1,"tid":1}}"#,
                2 * (N - i)
            )
        })
        .collect();
    let t = load(&format!("[{}]", events.join(",")));
    let s = &t.tables.slices;
    assert_eq!(s.len(), N);
    assert!((0..N).all(|i| s.depth(i) as usize == i));
    assert_eq!(s.tracks[0].max_depth as usize, N - 1);
    let depth = col(&t, "slices", "depth");
    assert_eq!(depth[65_535], i(65_535));
    assert_eq!(depth[N - 1], i(N as i64 - 1));
}
