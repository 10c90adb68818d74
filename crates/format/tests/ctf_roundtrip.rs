//! JSON -> CTF -> JSON keeps every event, on every fixture (and the external corpus
//! when it is there); a CTF trace laid out as LTTng lays them out loads as generic
//! events (a fixture, and the real LTTng traces of the corpus); the CTF fixture our
//! writer made earlier still reads as the events it was made from.

mod ctf_support;

use std::borrow::Cow;

use ctf_support::{assert_same_events, events_of, json_traces, text_of};
use tracescope_format::ctf::{is_ctf_dir, open_dir, read_dir, write_dir, CtfWriteOptions};
use tracescope_format::etw::Bitness;
use tracescope_format::id::{Int64, Pid};
use tracescope_format::{DiagKind, Diagnostics, EventRuns};

fn tmp(name: &str) -> ctf_support::TestDir {
    ctf_support::TestDir::new("ctf-rt", name)
}

#[test]
fn json_ctf_json_keeps_every_event() {
    for (name, text) in json_traces(true) {
        let events = events_of(&text);
        assert!(!events.is_empty(), "{name} has events");
        let dir = tmp(&name);
        // Small packets so the corpus traces span many.
        let opts = CtfWriteOptions {
            packet_bytes: 16 << 10,
            ..Default::default()
        };
        write_dir(&dir, &events, &opts).unwrap();
        assert!(is_ctf_dir(&dir));
        let (back, diags) = read_dir(&dir).unwrap();
        assert!(diags.is_empty(), "{name}: {diags:?}");
        assert_same_events(&name, &events, &back);
        // The borrowing read gives the same events, their names borrowed from the
        // files (what makes it fast), not copied.
        let files = open_dir(&dir).unwrap();
        let (borrowed, diags) = files.events().unwrap();
        assert!(diags.is_empty(), "{name}: {diags:?}");
        assert_same_events(&name, &events, &borrowed);
        assert!(
            borrowed
                .iter()
                .all(|e| matches!(e.name, Some(Cow::Borrowed(_)) | None)),
            "{name}: every name borrowed"
        );
        // Run by run (as `tracescope view` loads it), in any number of runs: the same
        // events in the same order.
        for split in [1, 3, 64] {
            let runs = files.runs().expect("our own layout").split(split);
            assert_eq!(runs.len(), borrowed.len(), "{name}");
            let mut got = Vec::new();
            let mut diags = Diagnostics::new();
            for k in 0..runs.runs() {
                runs.run(k, &mut diags, &mut |ev| got.push(ev));
            }
            assert!(diags.is_empty(), "{name}: {diags:?}");
            assert_same_events(&format!("{name} in {split} runs"), &events, &got);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A damaged stream is not read run by run: the general decoder reads it, with its
/// diagnostics.
#[test]
fn damaged_streams_are_not_read_run_by_run() {
    let events = events_of(
        r#"[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},
            {"ph":"i","name":"b","ts":5,"pid":1,"tid":1}]"#,
    );
    let dir = tmp("damaged");
    write_dir(&dir, &events, &CtfWriteOptions::default()).unwrap();
    assert!(open_dir(&dir).unwrap().runs().is_some());
    let stream = dir.join("chrome_0");
    let bytes = std::fs::read(&stream).unwrap();
    std::fs::write(&stream, &bytes[..bytes.len() - 3]).unwrap();
    let files = open_dir(&dir).unwrap();
    assert!(files.runs().is_none());
    let (_, diags) = files.events().unwrap();
    assert_eq!(diags.count(DiagKind::Truncated), 1, "{diags:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn negative_times_and_wide_stacks() {
    let events = events_of(
        r#"[{"ph":"B","name":"a","ts":-5000000.001,"pid":1,"tid":1,"stack":[1,18446744073709551615]},
            {"ph":"E","name":"a","ts":-1,"pid":1,"tid":1},
            {"ph":"X","name":"late","ts":9223372036854775.807,"dur":0,"pid":-1,"tid":99999999999}]"#,
    );
    for bits in [None, Some(Bitness::B32), Some(Bitness::B64)] {
        let dir = tmp(&format!("neg-{bits:?}"));
        write_dir(
            &dir,
            &events,
            &CtfWriteOptions {
                bits,
                ..Default::default()
            },
        )
        .unwrap();
        let (back, diags) = read_dir(&dir).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_same_events("negative times", &events, &back);
    }
}

/// The fixture `binary/ctf/generic-lttng-style` (made by its `make_generic.py`): the
/// same times and fields as `babeltrace2 --clock-cycles` prints, across two streams,
/// two packets and a 27-bit compact timestamp that wraps.
#[test]
fn generic_ctf_fixture_loads_as_instants_in_time_order() {
    let (events, diags) = read_dir(&tracescope_testdata::fixture(
        "binary/ctf/generic-lttng-style",
    ))
    .unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    let got: Vec<_> = events
        .iter()
        .map(|e| {
            (
                e.name.as_deref().unwrap(),
                e.cat.as_deref().unwrap(),
                e.ph.as_deref().unwrap(),
                e.ts.unwrap(),
                e.pid.clone().unwrap(),
                e.tid.clone().unwrap(),
                e.args.as_ref().unwrap().text.to_string(),
            )
        })
        .collect();
    let base = 1_700_000_000_000_000_000;
    let p = |n: i64| Pid::Int(Int64::I(n));
    assert_eq!(
        got,
        vec![
            (
                "app:start",
                "ust",
                "I",
                base + 1000,
                p(4242),
                p(4243),
                r#"{"vtid":4243,"vpid":4242,"msg":"hello","count":3}"#.to_string()
            ),
            (
                "app:start",
                "ust",
                "I",
                base + 2000,
                p(4242),
                p(4250),
                r#"{"vtid":4250,"vpid":4242,"msg":"from cpu 1","count":0}"#.to_string()
            ),
            (
                "app:value",
                "ust",
                "I",
                base + 2500,
                p(4242),
                p(4243),
                r#"{"vtid":4243,"vpid":4242,"delta":-7,"ratio":0.25,"n":3,"samples":[1,2,65535]}"#
                    .to_string()
            ),
            (
                "app:value",
                "ust",
                "I",
                base + (1 << 27) + 300,
                p(4242),
                p(4243),
                r#"{"vtid":4243,"vpid":4242,"delta":9,"ratio":1.5,"n":0,"samples":[]}"#.to_string()
            ),
        ]
    );
    // Not our layout: read as a whole, not run by run.
    let files = open_dir(&tracescope_testdata::fixture(
        "binary/ctf/generic-lttng-style",
    ))
    .unwrap();
    assert!(files.runs().is_none());
}

/// `binary/ctf/ours` was written by `tracescope convert binary/source.json`: files an
/// earlier build wrote still read as exactly the events they were made from, run by
/// run as well as whole.
#[test]
fn ctf_fixture_written_by_us_reads_as_its_source() {
    let want = events_of(&text_of(&tracescope_testdata::fixture(
        "binary/source.json",
    )));
    let dir = tracescope_testdata::fixture("binary/ctf/ours");
    let (back, diags) = read_dir(&dir).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    assert_same_events("binary/ctf/ours", &want, &back);
    let files = open_dir(&dir).unwrap();
    let runs = files.runs().expect("our own layout").split(3);
    let mut got = Vec::new();
    let mut diags = Diagnostics::new();
    for k in 0..runs.runs() {
        runs.run(k, &mut diags, &mut |ev| got.push(ev));
    }
    assert!(diags.is_empty(), "{diags:?}");
    assert_same_events("binary/ctf/ours in runs", &want, &got);
}

/// Corpus tier: the real LTTng and hand-made CTF traces of babeltrace's test data.
#[test]
fn corpus_ctf_traces_load_as_generic_events() {
    let Some(root) = tracescope_testdata::corpus("corpus/ctf", "the real CTF traces") else {
        return;
    };
    // Event counts babeltrace2 2.0.4 prints for these traces (SOURCE.txt).
    for (name, count) in [
        ("smalltrace", 2),
        ("debug-info", 4),
        ("wk-heartbeat-u", 20),
        ("trace-with-index", 4000),
        ("multi-domains", 4272),
    ] {
        let (events, diags) = read_dir(&root.join(name)).unwrap();
        assert_eq!(events.len(), count, "{name}: {diags:?}");
        assert!(
            events.windows(2).all(|w| w[0].ts <= w[1].ts),
            "{name}: events in time order"
        );
    }
    // Same times and fields as `babeltrace2 --clock-seconds` prints.
    let first = |name: &str| read_dir(&root.join(name)).unwrap().0.remove(0);
    let e = first("wk-heartbeat-u");
    assert_eq!(
        (e.name.as_deref(), e.cat.as_deref(), e.ph.as_deref()),
        (Some("heartbeat:msg"), Some("ust"), Some("I"))
    );
    assert_eq!(
        (e.ts, e.pid, e.tid),
        (
            Some(1_351_532_897_586_558_519),
            Some(Pid::Int(Int64::I(3208))),
            Some(Pid::Int(Int64::I(3214)))
        )
    );
    assert_eq!(
        e.args.unwrap().text,
        r#"{"vtid":3214,"vpid":3208,"msg":"heartbeat"}"#
    );
    let e = first("debug-info");
    assert_eq!(e.ts, Some(1_563_286_181_350_889_232));
    assert_eq!(
        e.args.unwrap().text,
        r#"{"vpid":9746,"ip":139679715463723,"baddr":140723481350144,"memsz":0,"path":"[linux-vdso.so.1]","is_pic":0,"has_build_id":0,"has_debug_link":0}"#
    );
    let e = first("smalltrace");
    assert_eq!(
        (e.name.as_deref(), e.args.unwrap().text.as_ref()),
        (Some("string"), r#"{"str":"This is a test trace"}"#)
    );
    let (events, _) = read_dir(&root.join("multi-domains")).unwrap();
    assert_eq!(events[0].ts, Some(1_565_032_541_344_453_871));
    assert!(events[0]
        .args
        .as_ref()
        .unwrap()
        .text
        .contains(r#""arrfield2":"test","arrfield3":[1,2,3]"#));
}
