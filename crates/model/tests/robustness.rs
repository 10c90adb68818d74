//! Random soups of events of every phase, with odd ids, times, scopes and args:
//! the model never panics, every table renders, and counts stay consistent.

mod common;

use proptest::prelude::*;

fn event() -> impl Strategy<Value = String> {
    let ph = prop::sample::select(vec![
        "B", "E", "X", "I", "i", "R", "C", "b", "n", "e", "S", "T", "p", "F", "s", "t", "f", "N",
        "O", "D", "P", "M", "v", "c", "(", "XXX", "",
    ]);
    let name = prop::sample::select(vec![
        "a",
        "b",
        "",
        "ui",
        "Profile",
        "ProfileChunk",
        "thread_name",
        "process_name",
        "TracingStartedInBrowser",
    ]);
    let ts = prop_oneof![
        Just(None),
        (-5i64..50).prop_map(Some),
        Just(Some(i64::MAX / 1000))
    ];
    let dur = prop_oneof![Just(None), (-2i64..30).prop_map(Some)];
    let id = prop_oneof![
        Just(String::new()),
        (0u8..3).prop_map(|i| format!(r#","id":{i}"#)),
        Just(r#","id":"0x1""#.to_string()),
        Just(r#","id2":{"local":1}"#.to_string()),
        Just(r#","id2":{"global":"x"}"#.to_string()),
        Just(r#","id2":{}"#.to_string())
    ];
    let args = prop::sample::select(vec![
        "",
        r#","args":{}"#,
        r#","args":{"ui-nest":0}"#,
        r#","args":{"step":"s1","v":"2","w":1.5}"#,
        r#","args":{"snapshot":{"k":[1,2]}}"#,
        r#","args":{"name":"n","sort_index":3,"labels":"l"}"#,
        r#","args":{"data":{"startTime":1,"frames":[{"processId":2,"url":"u"}],"cpuProfile":{"nodes":[{"id":1,"callFrame":{}},{"id":2,"parent":1}],"samples":[2,1,9]},"timeDeltas":[1,-1]}}"#,
        r#","args":[1,2]"#,
        r#","args":"str""#,
    ]);
    let extra = prop::sample::select(vec![
        "",
        r#","s":"g""#,
        r#","s":"p""#,
        r#","s":"q""#,
        r#","bp":"e""#,
        r#","bind_id":1,"flow_out":true"#,
        r#","bind_id":1,"flow_in":true"#,
        r#","sf":1"#,
        r#","stack":["x","y"]"#,
        r#","cname":"good""#,
    ]);
    let pid = prop::sample::select(vec!["", r#","pid":1"#, r#","pid":"2""#, r#","pid":"w""#]);
    let tid = prop::sample::select(vec!["", r#","tid":1"#, r#","tid":2"#]);
    (ph, name, ts, dur, id, args, extra, pid, tid).prop_map(
        |(ph, name, ts, dur, id, args, extra, pid, tid)| {
            let ph = if ph.is_empty() {
                String::new()
            } else {
                format!(r#""ph":"{ph}","#)
            };
            let ts = ts.map_or(String::new(), |t| format!(r#","ts":{t}"#));
            let dur = dur.map_or(String::new(), |d| format!(r#","dur":{d}"#));
            format!(r#"{{{ph}"name":"{name}"{ts}{dur}{id}{args}{extra}{pid}{tid}}}"#)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_events_never_break_the_model(events in prop::collection::vec(event(), 0..40), top in prop::sample::select(vec!["", r#","stackFrames":{"1":{"name":"f","parent":"1"}},"samples":[{"tid":1,"ts":1,"sf":"1"}]"#])) {
        let json = format!(r#"{{"traceEvents":[{}]{top}}}"#, events.join(","));
        let t = common::load(&json);
        let st = t.stats();
        prop_assert_eq!(st.events as usize, events.len());
        prop_assert_eq!(st.phases.iter().map(|p| p.1).sum::<u64>(), st.events);
        for table in tracescope_model::TABLES.iter().map(|t| t.name) {
            prop_assert!(t.rows(table).is_some());
        }
        for k in 0..t.tables.slices.len() {
            prop_assert!(t.tables.slices.dur(k) >= 0);
        }
    }
}
