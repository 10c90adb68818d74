//! Event <-> Chrome ETW records: exact events for every phase family and field, and
//! JSON -> ETW records -> JSON on every fixture and (corpus tier) real trace.

mod ctf_support;

use ctf_support::{assert_same_events, events_of, json_traces};
use tracescope_format::etw::{
    decode_payload, decode_record, encode_event, from_chrome, read_records, Bitness, ChromePayload,
    ChromeType, RecordWriter,
};
use tracescope_format::id::{Id, Int64, Pid};
use tracescope_format::{DiagKind, Event, RawJson};

fn ev(json: &str) -> Event<'static> {
    events_of(&format!("[{json}]")).remove(0)
}

fn round_trip(e: &Event<'_>, bits: Bitness) -> Vec<Event<'static>> {
    encode_event(e, bits)
        .unwrap()
        .iter()
        .filter_map(|r| decode_record(r, bits, 0).unwrap())
        .collect()
}

/// A record's type, arguments and stack.
type Shape = (ChromeType, Vec<(String, String)>, Option<Vec<u64>>);

fn args_of(e: &Event<'_>, bits: Bitness) -> Vec<Shape> {
    encode_event(e, bits)
        .unwrap()
        .iter()
        .map(|r| {
            let p = decode_payload(r.opcode, &r.payload, bits).unwrap();
            (
                p.ty,
                p.args
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                p.stack,
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn plain_begin_uses_only_the_model_slots() {
    let e = ev(
        r#"{"ph":"B","name":"Run","cat":"a,b","ts":1.5,"pid":3,"tid":4,"args":{"url":"x","n":"2"}}"#,
    );
    let recs = encode_event(&e, Bitness::B64).unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(
        (recs[0].ts, recs[0].pid, recs[0].tid, recs[0].opcode),
        (1500, 3, 4, 0x12)
    );
    assert_eq!(
        recs[0].payload,
        b"Run\0\0\0\0\0\0\0\0\0a,b\0url\0x\0n\x002\0"
    );
    assert_same_events("B", std::slice::from_ref(&e), &round_trip(&e, Bitness::B64));
}

#[test]
fn every_phase_maps_to_its_type_and_back() {
    let cases = [
        ("B", ChromeType::Begin, None),
        ("E", ChromeType::End, None),
        ("I", ChromeType::Instant, None),
        ("i", ChromeType::Instant, Some("\"i\"")),
        ("R", ChromeType::Instant, Some("\"R\"")),
        ("s", ChromeType::FlowBegin, None),
        ("t", ChromeType::FlowStep, None),
        ("f", ChromeType::FlowEnd, None),
        ("S", ChromeType::AsyncBegin, None),
        ("T", ChromeType::AsyncStep, None),
        ("p", ChromeType::AsyncStep, Some("\"p\"")),
        ("F", ChromeType::AsyncEnd, None),
        ("b", ChromeType::AsyncBegin, Some("\"b\"")),
        ("n", ChromeType::AsyncStep, Some("\"n\"")),
        ("e", ChromeType::AsyncEnd, Some("\"e\"")),
        ("N", ChromeType::CreateObject, None),
        ("O", ChromeType::SnapshotObject, None),
        ("D", ChromeType::DeleteObject, None),
        ("M", ChromeType::Metadata, None),
        ("C", ChromeType::Counter, None),
        ("P", ChromeType::Sample, None),
        ("v", ChromeType::Instant, Some("\"v\"")),
        ("XYZ", ChromeType::Instant, Some("\"XYZ\"")),
    ];
    for (ph, ty, marker) in cases {
        let e = ev(&format!(
            r#"{{"ph":"{ph}","name":"n","cat":"c","ts":5,"pid":1,"tid":2,"id":7}}"#
        ));
        assert_eq!(
            encode_event(&e, Bitness::B64).unwrap()[0].payload[..12],
            *b"n\0\x07\0\0\0\0\0\0\0c\0"
        );
        let got = args_of(&e, Bitness::B64);
        let want_args = marker.map(|m| pairs(&[("@ph", m)])).unwrap_or_default();
        assert_eq!(got, vec![(ty, want_args, None)], "{ph}");
        assert_same_events(ph, std::slice::from_ref(&e), &round_trip(&e, Bitness::B64));
    }
    let e = ev(r#"{"name":"no phase","ts":1,"pid":1,"tid":1}"#);
    assert_eq!(args_of(&e, Bitness::B64)[0].1, pairs(&[("@ph", "null")]));
    assert_same_events(
        "no ph",
        std::slice::from_ref(&e),
        &round_trip(&e, Bitness::B64),
    );
}

#[test]
fn complete_event_is_a_begin_end_pair_and_comes_back_as_x() {
    let e =
        ev(r#"{"ph":"X","name":"f","cat":"c","ts":1,"dur":10,"pid":1,"tid":1,"args":{"k":"v"}}"#);
    let recs = encode_event(&e, Bitness::B32).unwrap();
    assert_eq!(
        recs.iter()
            .map(|r| (r.ts, r.opcode >> 4))
            .collect::<Vec<_>>(),
        vec![(1000, 1), (11000, 3)]
    );
    assert_eq!(
        args_of(&e, Bitness::B32),
        vec![
            (
                ChromeType::Begin,
                pairs(&[("k", "v"), ("@ph", "\"X\""), ("@dur", "10000")]),
                None
            ),
            (ChromeType::End, pairs(&[("@ph", "\"X\"")]), None),
        ]
    );
    assert_same_events("X", std::slice::from_ref(&e), &round_trip(&e, Bitness::B32));
}

#[test]
fn every_field_survives() {
    let e = ev(
        r#"{"ph":"b","name":"a\u0000b","ts":-2.5,"dur":3,"tts":4,"tdur":5,"pid":"browser","tid":-1,
        "id":"0x1F","id2":{"global":"g"},"scope":"sc","s":"p","bp":"e","bind_id":9,"flow_in":true,"flow_out":false,
        "cname":"good","sf":"7","esf":8,"stack":["0x1"],"estack":[1,2],"args":{"@k":"v","n":[1,{"x":null}],"s":"a\u0000"},
        "extra":{"z":1},"other":true}"#,
    );
    assert!(e.cat.is_none() && e.extra.len() == 2);
    for bits in [Bitness::B32, Bitness::B64] {
        assert_same_events(
            "all fields",
            std::slice::from_ref(&e),
            &round_trip(&e, bits),
        );
        let got = args_of(&e, bits);
        assert_eq!(got[0].1.len(), 7, "overflow keeps 7 arguments");
        assert_eq!(got[0].1[6].0, "@more");
    }
}

#[test]
fn ids_pids_and_empty_values() {
    for json in [
        r#"{"ph":"S","name":"n","ts":0,"pid":1,"tid":1,"id":0}"#,
        r#"{"ph":"S","name":"n","ts":0,"pid":1,"tid":1,"id":-5}"#,
        r#"{"ph":"S","name":"n","ts":0,"pid":1,"tid":1,"id":18446744073709551615}"#,
        r#"{"ph":"S","name":"n","ts":0,"pid":4294967296,"tid":0,"id":"widget"}"#,
        r#"{"ph":"M","name":"process_name","pid":1,"args":{}}"#,
        r#"{"ph":"C","name":"","cat":"","ts":1,"pid":1,"tid":1,"args":[1,2]}"#,
        r#"{"ph":"i","ts":1,"pid":1,"tid":1,"s":"g","args":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}"#,
    ] {
        let e = ev(json);
        for bits in [Bitness::B32, Bitness::B64] {
            assert_same_events(json, std::slice::from_ref(&e), &round_trip(&e, bits));
        }
    }
    let e = ev(r#"{"ph":"S","name":"n","ts":0,"pid":1,"tid":1,"id":18446744073709551615}"#);
    assert_eq!(
        round_trip(&e, Bitness::B64)[0].id,
        Some(Id::Int(Int64::U(u64::MAX)))
    );
}

#[test]
fn stacks_of_both_bitnesses() {
    let e = ev(r#"{"ph":"I","name":"n","ts":0,"pid":1,"tid":1,"stack":[4096,4294967295,0]}"#);
    for bits in [Bitness::B32, Bitness::B64] {
        assert_eq!(
            args_of(&e, bits),
            vec![(
                ChromeType::Instant,
                vec![],
                Some(vec![4096, 0xffff_ffff, 0])
            )]
        );
        assert_eq!(encode_event(&e, bits).unwrap()[0].opcode, 0x28);
        assert_same_events("stack", std::slice::from_ref(&e), &round_trip(&e, bits));
    }
    let wide = ev(r#"{"ph":"I","name":"n","ts":0,"pid":1,"tid":1,"stack":[4294967296]}"#);
    assert_eq!(args_of(&wide, Bitness::B64)[0].2, Some(vec![1 << 32]));
    assert_eq!(
        args_of(&wide, Bitness::B32)[0],
        (
            ChromeType::Instant,
            pairs(&[("@stack", "[4294967296]")]),
            None
        )
    );
    assert_same_events(
        "wide stack",
        std::slice::from_ref(&wide),
        &round_trip(&wide, Bitness::B32),
    );
}

#[test]
fn foreign_payloads_decode_to_plain_events() {
    let p = ChromePayload {
        ty: ChromeType::Counter,
        name: "mem".into(),
        id: 3,
        categories: "base".into(),
        args: vec![
            ("@bogus".into(), "x".into()),
            ("@dur".into(), "not json".into()),
            ("value".into(), "12".into()),
        ],
        stack: Some(vec![0xabc]),
    };
    let e = from_chrome(p, 77, 5, 6, 9).unwrap();
    let want = Event {
        ph: Some("C".into()),
        name: Some("mem".into()),
        cat: Some("base".into()),
        ts: Some(77),
        pid: Some(Pid::Int(Int64::I(5))),
        tid: Some(Pid::Int(Int64::I(6))),
        id: Some(Id::Int(Int64::I(3))),
        stack: Some(RawJson::owned("[2748]".into())),
        args: Some(RawJson::owned(
            r#"{"@bogus":"x","@dur":"not json","value":"12"}"#.into(),
        )),
        offset: 9,
        ..Event::default()
    };
    assert_eq!(e, want);
}

/// `binary/ours.etw` was written by `tracescope convert binary/source.json`: a file an
/// earlier build wrote still reads as exactly the events it was made from.
#[test]
fn etw_fixture_written_by_us_reads_as_its_source() {
    let want = events_of(&ctf_support::text_of(&tracescope_testdata::fixture(
        "binary/source.json",
    )));
    let bytes = std::fs::read(tracescope_testdata::fixture("binary/ours.etw")).unwrap();
    let (back, diags) = read_records(&bytes).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    assert_same_events("binary/ours.etw", &want, &back);
}

#[test]
fn record_file_round_trips_every_fixture_and_corpus_trace() {
    for (name, text) in json_traces(true) {
        let events = events_of(&text);
        for bits in [Bitness::B32, Bitness::B64] {
            let mut w = RecordWriter::new(Vec::new(), bits).unwrap();
            for e in &events {
                w.write_event(e).unwrap();
            }
            let bytes = w.finish().unwrap();
            let (back, diags) = read_records(&bytes).unwrap();
            assert!(diags.is_empty(), "{name}: {diags:?}");
            assert_same_events(&name, &events, &back);
        }
    }
}

#[test]
fn record_file_damage_is_reported_with_offsets() {
    let e = ev(r#"{"ph":"B","name":"n","ts":1,"pid":1,"tid":1}"#);
    let mut w = RecordWriter::new(Vec::new(), Bitness::B64).unwrap();
    w.write_event(&e).unwrap();
    w.write_event(&e).unwrap();
    let good = w.finish().unwrap();
    // Second record's payload loses its categories NUL (a 1-byte shorter payload).
    let mut bad = good.clone();
    let second = 16 + 24 + 11;
    assert_eq!(good[16 + 20], 11);
    bad[second + 20] -= 1;
    bad.remove(second + 24 + 10);
    let (events, diags) = read_records(&bad).unwrap();
    assert_eq!(events.len(), 1);
    let d = diags.get(DiagKind::SyntaxError).unwrap();
    assert_eq!(d.offset, (second + 24 + 10) as u64);
    assert!(
        d.example.contains("categories has no terminating NUL"),
        "{}",
        d.example
    );
    let (events, diags) = read_records(&good[..good.len() - 3]).unwrap();
    assert_eq!((events.len(), diags.count(DiagKind::Truncated)), (1, 1));
    assert!(read_records(b"not a record file").is_err());
}
