//! 8 threads x 1M events: every event is in the trace or counted as dropped.

mod common;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use tracescope_record::{trace_instant, Builder};

const THREADS: u64 = 8;
const PER_THREAD: u64 = 1_000_000;

/// Checks the stream as it is written (it is too large to keep): each line is
/// one event; per thread the `seq` values are strictly increasing.
#[derive(Default)]
struct Check {
    partial: Vec<u8>,
    last_seq: HashMap<u64, i64>,
    events: u64,
    dropped_in_trace: u64,
    lines: u64,
}

impl Check {
    fn line(&mut self, line: &[u8]) {
        self.lines += 1;
        let line = std::str::from_utf8(line).expect("UTF-8");
        if line == "[" || line == "]" {
            return;
        }
        let field = |key: &str| -> Option<&str> {
            let start = line.find(key)? + key.len();
            let end = line[start..]
                .find([',', '}'])
                .map_or(line.len(), |e| start + e);
            Some(&line[start..end])
        };
        if line.contains("\"name\":\"tracescope_dropped_events\"") {
            self.dropped_in_trace = field("\"count\":").unwrap().parse().unwrap();
            return;
        }
        if !line.contains("\"cat\":\"stress\"") {
            return;
        }
        let tid: u64 = field("\"tid\":").unwrap().parse().unwrap();
        let seq: i64 = field("\"seq\":").unwrap().parse().unwrap();
        let last = self.last_seq.entry(tid).or_insert(-1);
        assert!(seq > *last, "thread {tid}: seq {seq} after {last}");
        *last = seq;
        self.events += 1;
    }
}

#[derive(Clone, Default)]
struct CheckSink(Arc<Mutex<Check>>);

impl Write for CheckSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut c = self.0.lock().unwrap();
        c.partial.extend_from_slice(buf);
        let data = std::mem::take(&mut c.partial);
        let mut start = 0;
        for (i, &b) in data.iter().enumerate() {
            if b == b'\n' {
                c.line(&data[start..i]);
                start = i + 1;
            }
        }
        c.partial = data[start..].to_vec();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn eight_threads_a_million_events_each_all_present_or_counted() {
    let _s = common::serial();
    let sink = CheckSink::default();
    let guard = Builder::new()
        .signals(false)
        .buffer_size(1 << 20)
        .to_writer(sink.clone())
        .unwrap();
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            std::thread::spawn(|| {
                for seq in 0..PER_THREAD {
                    trace_instant!("stress", "e", "seq" => seq);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let stats = guard.finish();
    let check = sink.0.lock().unwrap();
    assert!(check.partial.is_empty(), "the stream ends with a full line");
    assert_eq!(check.last_seq.len() as u64, THREADS);
    assert_eq!(check.events, stats.events);
    assert_eq!(
        check.events + stats.dropped,
        THREADS * PER_THREAD,
        "{stats:?}"
    );
    // The trace itself says how many were dropped.
    assert_eq!(check.dropped_in_trace, stats.dropped);
    eprintln!("stress: {stats:?}");
}
