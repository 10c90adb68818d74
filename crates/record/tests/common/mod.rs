//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tracescope_format::DiagKind;
use tracescope_model::{LoadOptions, Trace};

/// Sessions are process-wide: tests of one binary take turns.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// An in-memory sink whose bytes stay readable after the session ends.
#[derive(Clone, Default)]
pub struct MemSink(pub Arc<Mutex<Vec<u8>>>);

impl Write for MemSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl MemSink {
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap().clone()
    }
}

/// Reads a trace as a tolerant reader does: a complete array as is; an array
/// cut after a `,` (what the recorder leaves between flushes) by closing it.
/// Also checks the line structure the recorder promises: `[`, then one
/// complete event per line (a partly written last line is ignored).
pub fn parse(bytes: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(bytes).expect("trace is UTF-8");
    // A process killed inside a write(2) may leave part of a line: not an event.
    let text = text.rfind('\n').map_or(text, |i| &text[..=i]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("["),
        "trace starts with `[` on its own line"
    );
    for line in lines {
        if line == "]" {
            continue;
        }
        let event = line.strip_suffix(',').unwrap_or(line);
        let v: Value = serde_json::from_str(event)
            .unwrap_or_else(|e| panic!("line is not one JSON event ({e}): {line}"));
        assert!(v.is_object(), "{line}");
    }
    let trimmed = text.trim_end();
    let doc = if trimmed.ends_with(']') {
        trimmed.to_string()
    } else {
        format!("{}]", trimmed.trim_end_matches(','))
    };
    match serde_json::from_str(&doc).expect("trace is a JSON array once closed") {
        Value::Array(events) => events,
        other => panic!("not an array: {other}"),
    }
}

/// The events that are not metadata, in file order.
pub fn timed(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["ph"] != "M").collect()
}

/// `ts` in nanoseconds, exactly (the text has three decimals).
pub fn ts_ns(e: &Value) -> i64 {
    let s = e["ts"].to_string();
    let (int, frac) = s.split_once('.').expect("ts has a fractional part");
    assert_eq!(frac.len(), 3, "ts {s} has three decimals");
    int.parse::<i64>().unwrap() * 1000 + frac.parse::<i64>().unwrap()
}

/// Loads a trace with tracescope's own reader and model.
pub fn load(bytes: &[u8]) -> Trace {
    let text = String::from_utf8(bytes.to_vec()).expect("trace is UTF-8");
    Trace::from_json(Box::new(text), bytes.len() as u64, &LoadOptions::default())
        .expect("tracescope reads the trace")
}

/// Asserts the trace has no diagnostic other than `allowed`.
pub fn assert_diagnostics(trace: &Trace, allowed: &[DiagKind]) {
    for &kind in DiagKind::ALL {
        if !allowed.contains(&kind) {
            assert_eq!(
                trace.diagnostics.count(kind),
                0,
                "unexpected diagnostic {:?}",
                trace.diagnostics.get(kind)
            );
        }
    }
}

/// What a trace cut between two flushes may show: no `]`, a trailing comma.
pub const CUT: &[DiagKind] = &[DiagKind::Truncated, DiagKind::TrailingComma];
