//! The slice table keeps the cells most slices lack apart (the closing `E`'s args,
//! `cname`), thread times only when a trace has some, and dur, self time, args,
//! depth, offset and `tdur` in narrow cells with the values that do not fit kept whole:
//! every path reads back the rows main's full-width columns gave. Starts and
//! thread times are 5-byte distances from the earliest (or whole when they span
//! more), categories 2-byte cells.

mod common;
use common::*;
use tracescope_model::{Cell, Fill, Lane, RowSource, Trace, TABLES};

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
    assert_eq!(s.row_bytes(), 46);
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
    assert_eq!(t.tables.slices.row_bytes(), 37);
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

/// Durations and self times at the edges of their 4-byte cells (`u32::MAX - 1`
/// ns fits; `u32::MAX` ns, longer and negative ones are kept whole): every path
/// reads back the exact nanoseconds of the input.
#[test]
fn durations_past_four_bytes_read_back() {
    // dur in µs with 3 decimals: exact ns. `u32::MAX` ns is 4294967.295 µs.
    let t = load(
        r#"[
        {"ph":"X","name":"fits","ts":0,"dur":4294967.294,"pid":1,"tid":1},
        {"ph":"X","name":"kid","ts":0,"dur":0.001,"pid":1,"tid":1},
        {"ph":"X","name":"marker","ts":5000000,"dur":4294967.295,"pid":1,"tid":1},
        {"ph":"X","name":"past","ts":10000000,"dur":4294967.296,"pid":1,"tid":1},
        {"ph":"X","name":"kid","ts":10000000,"dur":0.001,"pid":1,"tid":1},
        {"ph":"X","name":"longest","ts":0,"dur":9223372036854775.807,"pid":1,"tid":2},
        {"ph":"X","name":"kid","ts":1,"dur":1,"pid":1,"tid":2},
        {"ph":"X","name":"before","ts":-5000000,"dur":1,"pid":1,"tid":3},
        {"ph":"B","name":"open","ts":-5000000,"pid":1,"tid":3}
    ]"#,
    );
    // name, cat, ts_ns, dur_ns, depth, self_ns in table order.
    let head: Vec<String> = lines(&t)
        .iter()
        .map(|l| l.split(' ').take(6).collect::<Vec<_>>().join(" "))
        .collect();
    let want = [
        "before  -5000000000 1000 0 0",
        "open  -5000000000 1000 1 1000",
        "fits  0 4294967294 0 4294967293",
        "kid  0 1 1 1",
        "longest  0 9223372036854775807 0 9223372036854774807",
        "kid  1000 1000 1 1000",
        "marker  5000000000 4294967295 0 4294967295",
        "past  10000000000 4294967296 0 4294967295",
        "kid  10000000000 1 1 1",
    ];
    assert_eq!(head, want);
    // The fills (what SQL and Parquet read) give the getters' cells.
    for column in ["dur_ns", "self_ns"] {
        let want: Vec<Cell> = col(&t, "slices", column);
        assert_eq!(filled_ints(&t, column), want, "{column}");
    }
    let s = &t.tables.slices;
    let durs: Vec<i64> = (0..s.len()).map(|i| s.dur(i)).collect();
    assert_eq!(
        durs,
        [
            4294967294,
            1,
            4294967295,
            4294967296,
            1,
            i64::MAX,
            1000,
            1000,
            1000
        ]
    );
}

/// The cells of an integer column of the slice table by its fill, in table
/// order.
fn filled_ints(t: &Trace, column: &str) -> Vec<Cell> {
    let table = TABLES.iter().find(|tb| tb.name == "slices").unwrap();
    let RowSource::Indexed { order, .. } = &table.rows else {
        unreachable!("the slice table is indexed")
    };
    let Some(Fill::Int(fill)) = table.fill(column) else {
        panic!("{column} has an integer fill")
    };
    let mut out = Vec::new();
    fill(t, &order(t), &mut out);
    out.iter()
        .map(|v| v.map_or(Cell::Null, Cell::Int))
        .collect()
}

/// A row's args are kept as where they start after its event's offset: args
/// past 64 KiB into the event are kept whole and read back as exactly; compact
/// and spaced args, args first in their object, a `B`'s args with its `E`'s.
#[test]
fn args_far_into_their_event_read_back() {
    let long = "n".repeat(70_000);
    let json = format!(
        r#"[
        {{"ph":"X","name":"{long}","ts":0,"dur":1,"pid":1,"tid":1,"args":{{"far":1}}}},
        {{"args":{{"first":true}},"ph":"X","name":"a","ts":2,"dur":1,"pid":1,"tid":1}},
        {{"ph":"X","name":"b","ts":4,"dur":1,"pid":1,"tid":1,"args": {{ "spaced" : [1, 2] }}}},
        {{"ph":"B","name":"c","ts":6,"pid":1,"tid":1,"args":{{"at":"B"}}}},
        {{"ph":"E","ts":7,"pid":1,"tid":1,"args":{{"at":"E"}}}},
        {{"ph":"X","name":"d","ts":8,"dur":1,"pid":1,"tid":1}}
    ]"#
    );
    let t = load(&json);
    let s = &t.tables.slices;
    let raw: Vec<_> = (0..s.len()).map(|i| t.raw(s.args(i))).collect();
    assert_eq!(
        raw,
        [
            r#"{"far":1}"#,
            r#"{"first":true}"#,
            r#"{ "spaced" : [1, 2] }"#,
            r#"{"at":"B"}"#,
            ""
        ]
    );
    assert!(s.args(4).is_none());
    let args: Vec<String> = col(&t, "slices", "args")
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(
        args,
        [
            r#"{"far":1}"#,
            r#"{"first":true}"#,
            r#"{"spaced":[1,2]}"#,
            r#"{"at":"E"}"#,
            ""
        ]
    );
    // The fill (what SQL and Parquet read) gives the getter's cells.
    let table = TABLES.iter().find(|tb| tb.name == "slices").unwrap();
    let RowSource::Indexed { order, .. } = &table.rows else {
        unreachable!("the slice table is indexed")
    };
    let Some(Fill::Json(fill)) = table.fill("args") else {
        panic!("args has a JSON fill")
    };
    let mut filled = Vec::new();
    fill(&t, &order(&t), &mut |v| {
        filled.push(v.unwrap_or_default().to_string())
    });
    assert_eq!(filled, args);
}

/// Starts and thread times spanning more than 40 bits of nanoseconds (18.3
/// minutes) keep their columns whole: every row reads back exactly, negative and
/// far ones too; within the span they take 5 bytes a row.
#[test]
fn starts_spanning_past_five_bytes_read_back() {
    // 2^40 ns is 1099511627.776 µs; a cell holds distances up to 2^40 - 3 ns.
    let far = r#"[
        {"ph":"X","name":"a","ts":-5,"dur":1,"tts":3,"tdur":1,"pid":1,"tid":1},
        {"ph":"X","name":"b","ts":1099511627.776,"dur":1,"tts":2000000000,"tdur":1,"pid":1,"tid":1},
        {"ph":"X","name":"c","ts":9000000000000,"dur":1,"pid":1,"tid":2}
    ]"#;
    let t = load(far);
    let s = &t.tables.slices;
    let got: Vec<(i64, Option<i64>)> = (0..s.len())
        .map(|i| (s.ts(i), s.tts(i).map(|v| v.get())))
        .collect();
    assert_eq!(
        got,
        [
            (-5000, Some(3000)),
            (1099511627776, Some(2000000000000)),
            (9000000000000000, None)
        ]
    );
    // Whole starts and thread times: 8 bytes each, as before.
    assert_eq!(s.row_bytes(), 37 - 5 + 8 + 8 + 4);
    // The farthest each column's cells reach from -5000 and 3000 ns.
    let near = r#"[
        {"ph":"X","name":"a","ts":-5,"dur":1,"tts":3,"tdur":1,"pid":1,"tid":1},
        {"ph":"X","name":"b","ts":1099511622.768,"dur":1,"tts":1099511627.776,"tdur":1,"pid":1,"tid":1},
        {"ph":"X","name":"c","ts":1099511622.768,"dur":1,"pid":1,"tid":2}
    ]"#;
    let t = load(near);
    let s = &t.tables.slices;
    assert_eq!(
        (s.ts(1), s.tts(1).map(|v| v.get()), s.ts(2), s.tts(2)),
        (1099511622768, Some(1099511627776), 1099511622768, None)
    );
    assert_eq!(s.row_bytes(), 37 + 5 + 4);
    assert_eq!(filled_ints(&t, "ts_ns"), col(&t, "slices", "ts_ns"));
    assert_eq!(filled_ints(&t, "tts_ns"), col(&t, "slices", "tts_ns"));
}

/// More categories than 2-byte cells hold: those past them are kept whole, and
/// every row reads back its own.
#[test]
fn categories_past_two_bytes_read_back() {
    const N: usize = 70_000;
    let events: Vec<String> = (0..N)
        .map(|i| {
            format!(r#"{{"ph":"X","name":"f","cat":"c{i}","ts":{i},"dur":1,"pid":1,"tid":1}}"#)
        })
        .collect();
    let t = load(&format!("[{}]", events.join(",")));
    let s = &t.tables.slices;
    assert_eq!(s.len(), N);
    for k in 0..N {
        assert_eq!(t.str(s.cat(k)), format!("c{k}"), "row {k}");
    }
    let cats = col(&t, "slices", "cat");
    assert_eq!(cats[N - 1], common::s(&format!("c{}", N - 1)));
}
