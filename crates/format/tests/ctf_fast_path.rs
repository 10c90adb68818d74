//! The fast path for tracescope's own CTF layout and the generic TSDL decoder give the
//! same events and diagnostics, for sound and for damaged streams. The generic path
//! is forced by metadata that deviates from ours only in spelling (`_name`, TSDL's
//! escape, which both decoders treat as `name`).

mod ctf_support;

use tracescope_format::ctf::read_trace_bytes;
use tracescope_format::{Diagnostics, Event};

/// Varied events: every phase family, reserved args, `@more`, stacks, odd ids,
/// unsorted times (so `seq` restores order), plus the fixtures.
fn events() -> Vec<Event<'static>> {
    let mut ev = ctf_support::events_of(
        r#"[{"ph":"X","name":"a","cat":"c","ts":10,"dur":2,"pid":1,"tid":1,"args":{"k":"v","n":[1],"o":{"x":"y"}}},
            {"ph":"I","name":"b","ts":5,"pid":1,"tid":1,"stack":[1,2,3],"s":"g"},
            {"ph":"C","name":"c","ts":6,"pid":"p","tid":1,"args":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}},
            {"ph":"b","name":"d\"q","cat":"","ts":7,"pid":1,"tid":2,"id":"0x10","args":{"@k":"v","s":"t\nu"}},
            {"ph":"X","name":"e","ts":1,"dur":-3,"tts":4,"pid":1,"tid":2,"id2":{"local":"0x1"},"args":5},
            {"ph":"E","name":"f","ts":8,"pid":1,"tid":2,"args":{"@ph":"X"}},
            {"ph":"zz","ts":9,"pid":-4,"tid":3,"bind_id":7,"flow_in":true,"unknown":[1,{"a":null}]}]"#,
    );
    for (_, text) in ctf_support::json_traces(false) {
        ev.extend(ctf_support::events_of(&text));
    }
    ev
}

fn read<'a>(meta: &str, stream: &'a [u8]) -> (Vec<Event<'a>>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let ev = read_trace_bytes(meta.as_bytes(), &[("chrome_0", stream)], &mut diags).unwrap();
    (ev, diags)
}

/// Our metadata, respelled so only the generic decoder takes it.
fn respelled(meta: &str) -> String {
    assert!(meta.contains("\t\tstring name;"));
    meta.replace("\t\tstring name;", "\t\tstring _name;")
}

#[test]
fn fast_and_generic_paths_agree() {
    let events = events();
    let (meta, stream) = ctf_support::written(&events, 512);
    let fast = read(&meta, &stream);
    let generic = read(&respelled(&meta), &stream);
    assert!(fast.1.is_empty(), "{:?}", fast.1);
    assert_eq!(fast.0.len(), events.len());
    assert_eq!(fast, generic);
    ctf_support::assert_same_events("fast path", &events, &fast.0);
}

#[test]
fn damaged_streams_agree() {
    let (meta, stream) = ctf_support::written(&events(), 512);
    let generic_meta = respelled(&meta);
    let mut damaged = 0;
    // About 200 positions spread over the stream (headers, contexts and payloads).
    for at in (0..stream.len()).step_by(stream.len() / 200 + 1) {
        for v in [0x00, 0xff, b'"', 0x01] {
            let mut s = stream.clone();
            if s[at] == v {
                continue;
            }
            s[at] = v;
            let fast = read(&meta, &s);
            let generic = read(&generic_meta, &s);
            assert_eq!(fast, generic, "byte {at} set to {v:#x}");
            damaged += usize::from(!fast.1.is_empty());
        }
        let cut = &stream[..at];
        assert_eq!(read(&meta, cut), read(&generic_meta, cut), "cut at {at}");
    }
    assert!(
        damaged > 10,
        "the edits should damage many reads: {damaged}"
    );
}
