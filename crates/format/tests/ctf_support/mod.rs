//! Shared by the CTF and ETW tests: load the seed examples and corpus traces as
//! Events, and compare events field by field (args as compact JSON).
#![allow(dead_code)]

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use tracescope_format::id::{Id, Id2, Int64, Pid};
use tracescope_format::json::value::compact;
use tracescope_format::json::Value;
use tracescope_format::time::micros_text_to_ns;
use tracescope_format::{Event, RawJson};

pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// The seed-guide examples and the catapult corpus: (name, JSON text).
pub fn json_traces(with_corpus: bool) -> Vec<(String, String)> {
    let mut dirs = vec![
        shared().join("examples/seed-guide"),
        shared().join("examples/seed-viewer"),
    ];
    if with_corpus {
        dirs.push(shared().join("corpus/catapult"));
    }
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap();
            let text = if name.ends_with(".gz") {
                use std::io::Read;
                let mut s = String::new();
                flate2::read::MultiGzDecoder::new(&bytes[..])
                    .read_to_string(&mut s)
                    .unwrap();
                s
            } else if name.ends_with(".json") {
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                continue;
            };
            out.push((name, text));
        }
    }
    out
}

fn int_id(v: &Value<'_>) -> Option<Id<'static>> {
    match v {
        Value::Number(n) => Int64::parse_number(n).map(Id::Int),
        Value::String(s) => Some(Id::Str(Cow::Owned(s.to_string()))),
        _ => None,
    }
}

fn time(v: &Value<'_>) -> Option<i64> {
    match v {
        Value::Number(n) => micros_text_to_ns(n),
        Value::String(s) => micros_text_to_ns(s),
        _ => None,
    }
}

/// A small JSON-to-Event reader for tests (the real one lives in `json::`): enough
/// to give every event field a value from the test traces.
pub fn events_of(text: &str) -> Vec<Event<'static>> {
    let trimmed = text.trim().trim_end_matches(',');
    let wrapped = format!("[{trimmed}]");
    let doc = Value::parse(trimmed)
        .or_else(|_| Value::parse(&wrapped))
        .expect("test trace parses");
    let list = match &doc {
        Value::Array(a) => a.as_slice(),
        Value::Object(_) => match doc.get("traceEvents").and_then(|v| v.as_array()) {
            Some(list) => list,
            // A lone event (a fragment such as `{...},`).
            None => std::slice::from_ref(&doc),
        },
        _ => &[],
    };
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let Some(members) = item.as_object() else {
            continue;
        };
        let mut ev = Event {
            offset: i as u64,
            ..Event::default()
        };
        for (k, v) in members {
            let s = || v.as_str().map(|s| Cow::Owned(s.to_string()));
            let raw = || Some(RawJson::owned(v.to_compact()));
            let pid = || match v {
                Value::Number(n) => Int64::parse_number(n).map(Pid::Int),
                Value::String(s) => Some(Pid::from_str_value(Cow::Owned(s.to_string()))),
                _ => None,
            };
            let ok = match k.as_ref() {
                "ph" => s().map(|x| ev.ph = Some(x)),
                "name" => s().map(|x| ev.name = Some(x)),
                "cat" => s().map(|x| ev.cat = Some(x)),
                "ts" => time(v).map(|x| ev.ts = Some(x)),
                "dur" => time(v).map(|x| ev.dur = Some(x)),
                "tts" => time(v).map(|x| ev.tts = Some(x)),
                "tdur" => time(v).map(|x| ev.tdur = Some(x)),
                "pid" => pid().map(|x| ev.pid = Some(x)),
                "tid" => pid().map(|x| ev.tid = Some(x)),
                "id" => int_id(v).map(|x| ev.id = Some(x)),
                "bind_id" => int_id(v).map(|x| ev.bind_id = Some(x)),
                "sf" => int_id(v).map(|x| ev.sf = Some(x)),
                "esf" => int_id(v).map(|x| ev.esf = Some(x)),
                "id2" => match (v.get("local"), v.get("global")) {
                    (Some(l), None) => int_id(l).map(|x| ev.id2 = Some(Id2::Local(x))),
                    (None, Some(g)) => int_id(g).map(|x| ev.id2 = Some(Id2::Global(x))),
                    _ => None,
                },
                "scope" => s().map(|x| ev.scope = Some(x)),
                "s" => s().map(|x| ev.s = Some(x)),
                "bp" => s().map(|x| ev.bp = Some(x)),
                "cname" => s().map(|x| ev.cname = Some(x)),
                "flow_in" => v.as_bool().map(|x| ev.flow_in = Some(x)),
                "flow_out" => v.as_bool().map(|x| ev.flow_out = Some(x)),
                "stack" => raw().map(|x| ev.stack = Some(x)),
                "estack" => raw().map(|x| ev.estack = Some(x)),
                "args" => raw().map(|x| ev.args = Some(x)),
                _ => None,
            };
            if ok.is_none() {
                ev.extra
                    .push((Cow::Owned(k.to_string()), RawJson::owned(v.to_compact())));
            }
        }
        out.push(ev);
    }
    out
}

/// The event with args/stack/extra as compact JSON and no offset, for comparison.
pub fn normal(ev: &Event<'_>) -> Event<'static> {
    let mut e = ev.clone().into_owned();
    let c = |r: &mut Option<RawJson<'static>>| {
        if let Some(x) = r {
            *x = RawJson::owned(compact(&x.text));
        }
    };
    c(&mut e.args);
    c(&mut e.stack);
    c(&mut e.estack);
    for (_, v) in &mut e.extra {
        *v = RawJson::owned(compact(&v.text));
    }
    e.offset = 0;
    e
}

/// Asserts two event lists are the same, naming the first difference.
pub fn assert_same_events(what: &str, want: &[Event<'_>], got: &[Event<'_>]) {
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        assert_eq!(normal(g), normal(w), "{what}: event {i} differs");
    }
    assert_eq!(got.len(), want.len(), "{what}: event count");
}
