//! Reading what the writer wrote gives back the same events and trailer: for random
//! events with every field, for every fixture and (corpus tier) every real trace.

mod common;

use std::borrow::Cow;

use common::{corpus_files, read};
use proptest::prelude::*;
use tracescope_format::json::value::{compact, write_string};
use tracescope_format::json::{Form, JsonWriter, Trailer};
use tracescope_format::{DiagKind, Event, Id, Id2, Int64, Pid, RawJson, Source};

fn write(events: &[Event<'_>], trailer: &Trailer<'_>) -> String {
    let mut w = JsonWriter::new(Vec::new()).unwrap();
    for e in events {
        w.write_event(e).unwrap();
    }
    String::from_utf8(w.finish(trailer).unwrap()).unwrap()
}

/// Raw values compared as strict JSON: text the writer had to rewrite (comments,
/// trailing commas, control bytes such as newlines) is compared compacted.
fn norm_raw(r: &RawJson<'_>) -> RawJson<'static> {
    if r.clean && !r.text.bytes().any(|b| b < 0x20) {
        RawJson::owned(r.text.to_string())
    } else {
        RawJson::owned(compact(&r.text))
    }
}

fn norm(e: &Event<'_>) -> Event<'static> {
    let mut e = e.clone().into_owned();
    e.offset = 0;
    for r in [&mut e.args, &mut e.stack, &mut e.estack]
        .into_iter()
        .flatten()
    {
        *r = norm_raw(r);
    }
    for (_, v) in &mut e.extra {
        *v = norm_raw(v);
    }
    e
}

fn norm_trailer(t: &Trailer<'_>) -> Trailer<'static> {
    let n = |o: &Option<RawJson<'_>>| o.as_ref().map(norm_raw);
    Trailer {
        metadata: t
            .metadata
            .iter()
            .map(|(k, v)| (Cow::Owned(k.to_string()), norm_raw(v)))
            .collect(),
        stack_frames: n(&t.stack_frames),
        samples: n(&t.samples),
        system_trace_events: n(&t.system_trace_events),
    }
}

// ---- generated events ---------------------------------------------------------------

fn int64() -> impl Strategy<Value = Int64> {
    prop_oneof![
        any::<i64>().prop_map(Int64::I),
        any::<u64>().prop_map(Int64::from_u64),
        (0i64..100).prop_map(Int64::I)
    ]
}

/// Strings with quotes, backslashes, control characters, non-ASCII and digits.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z0-9\"\\\\/\t\n\u{1}é😀 ]{0,12}",
        "[0-9]{1,5}",
        "0x[0-9a-fA-F]{1,4}"
    ]
}

fn id() -> impl Strategy<Value = Id<'static>> {
    prop_oneof![
        int64().prop_map(Id::Int),
        text().prop_map(|s| Id::Str(s.into()))
    ]
}

fn pid() -> impl Strategy<Value = Pid<'static>> {
    // `from_str_value` is how a read sees a string pid ("25738" is the integer).
    prop_oneof![
        int64().prop_map(Pid::Int),
        text().prop_map(|s| Pid::from_str_value(s.into()))
    ]
}

/// Compact JSON text of a random value, nested.
fn json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        Just("18446744073709551615".to_string()),
        Just("-1.5e-7".to_string()),
        text().prop_map(|s| {
            let mut o = String::new();
            write_string(&s, &mut o);
            o
        }),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((text(), inner), 0..4).prop_map(|m| {
                let members: Vec<String> = m
                    .into_iter()
                    .map(|(k, v)| {
                        let mut o = String::new();
                        write_string(&k, &mut o);
                        format!("{o}:{v}")
                    })
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

fn raw_json() -> impl Strategy<Value = RawJson<'static>> {
    json().prop_map(RawJson::owned)
}

const KNOWN: &[&str] = &[
    "ph", "name", "cat", "ts", "dur", "tts", "tdur", "pid", "tid", "id", "id2", "scope", "s", "bp",
    "bind_id", "flow_in", "flow_out", "cname", "sf", "esf", "stack", "estack", "args",
];

prop_compose! {
    fn strings()(ph in text(), name in proptest::option::of(text()), cat in proptest::option::of(text()),
                 scope in proptest::option::of(text()), s in proptest::option::of(text()),
                 bp in proptest::option::of(text()), cname in proptest::option::of(text()))
                -> [Option<String>; 7] {
        [Some(ph), name, cat, scope, s, bp, cname]
    }
}

prop_compose! {
    fn event()(strs in strings(),
               times in proptest::array::uniform4(proptest::option::of(any::<i64>())),
               pid in proptest::option::of(pid()), tid in proptest::option::of(pid()),
               ids in proptest::array::uniform4(proptest::option::of(id())),
               id2 in proptest::option::of((any::<bool>(), id())),
               flows in (proptest::option::of(any::<bool>()), proptest::option::of(any::<bool>())),
               raws in proptest::array::uniform3(proptest::option::of(raw_json())),
               extra in prop::collection::vec((text(), raw_json()), 0..3)) -> Event<'static> {
        let [ph, name, cat, scope, s, bp, cname] = strs.map(|o| o.map(Cow::Owned));
        let [id, bind_id, sf, esf] = ids;
        let [stack, estack, args] = raws;
        let mut keys = Vec::new();
        let extra = extra
            .into_iter()
            .filter(|(k, _)| !KNOWN.contains(&k.as_str()) && !keys.contains(k) && { keys.push(k.clone()); true })
            .map(|(k, v)| (Cow::Owned(k), v))
            .collect();
        Event {
            ph, name, cat, scope, s, bp, cname,
            ts: times[0], dur: times[1], tts: times[2], tdur: times[3],
            pid, tid, id, bind_id, sf, esf,
            id2: id2.map(|(g, id)| if g { Id2::Global(id) } else { Id2::Local(id) }),
            flow_in: flows.0, flow_out: flows.1,
            stack, estack, args, extra, encoded_args: None,
            offset: 0,
        }
    }
}

proptest! {
    #[test]
    fn random_events_round_trip(events in prop::collection::vec(event(), 0..6),
                                meta in prop::collection::vec((text(), raw_json()), 0..3),
                                frames in proptest::option::of(raw_json())) {
        let metadata: Vec<_> = meta
            .into_iter()
            .filter(|(k, _)| !["traceEvents", "stackFrames", "samples", "systemTraceEvents"].contains(&k.as_str()))
            .map(|(k, v)| (Cow::Owned(k), v))
            .collect();
        let trailer = Trailer { metadata, stack_frames: frames, ..Trailer::default() };
        let text = write(&events, &trailer);
        let (trace, back) = read(&text);
        prop_assert_eq!(back.iter().map(norm).collect::<Vec<_>>(), events.iter().map(norm).collect::<Vec<_>>());
        prop_assert_eq!(norm_trailer(&trace.trailer()), norm_trailer(&trailer));
        prop_assert!(trace.diagnostics.get(DiagKind::SyntaxError).is_none(), "{:?}", trace.diagnostics);
    }
}

// ---- whole traces ---------------------------------------------------------------------

#[test]
fn fixtures_round_trip() {
    let files = tracescope_testdata::fixture_files("");
    assert!(round_trips(&files) > 50);
}

#[test]
fn corpus_round_trips() {
    if let Some((_, files)) = corpus_files() {
        assert!(round_trips(&files) > 100);
    }
}

/// Writes each trace and reads it back; the number of traces with an event list.
fn round_trips(paths: &[std::path::PathBuf]) -> usize {
    let mut files = 0;
    for path in paths {
        let src = Source::open(path).unwrap();
        let (trace, events) = read(src.text());
        if trace.form == Form::CpuProfile {
            continue; // a raw profile has no event list to write
        }
        let text = write(&events, &trace.trailer());
        let (again, back) = read(&text);
        let name = path.display();
        assert_eq!(again.form, Form::Object, "{name}");
        assert!(
            back.iter().map(norm).eq(events.iter().map(norm)),
            "{name}: events differ"
        );
        assert_eq!(
            norm_trailer(&again.trailer()),
            norm_trailer(&trace.trailer()),
            "{name}"
        );
        for kind in [
            DiagKind::SyntaxError,
            DiagKind::Truncated,
            DiagKind::Comment,
            DiagKind::TrailingComma,
        ] {
            assert_eq!(
                again.diagnostics.count(kind),
                0,
                "{name}: {kind} in written text"
            );
        }
        files += 1;
    }
    files
}
