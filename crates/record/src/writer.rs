//! The writer thread: drains every ring, formats JSON, streams it to the sink.
//!
//! Output is the JSON array form, one event per line, each followed by `,`:
//! after every write the sink holds a loadable trace (readers accept the missing
//! `]`). A clean stop ends the array with a final metadata event and `]`.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::clock::{self, Anchor, Timebase};
use crate::drain::{Drainer, Job, Sink};
use crate::json;
use crate::ring::{self, Ring};

/// Counters of a recording session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Events written to the sink (metadata events not included).
    pub events: u64,
    /// Events dropped because a thread's buffer was full (also in the trace).
    pub dropped: u64,
    /// Writes to the sink that failed (their events are lost).
    pub write_errors: u64,
    /// Bytes written to the sink.
    pub bytes: u64,
}

/// Process-wide metadata, written at start and whenever it changes.
#[derive(Default)]
pub(crate) struct ProcessMeta {
    pub name: Option<String>,
    pub sort_index: Option<i64>,
    pub version: u64,
}

pub(crate) static PROCESS: Mutex<ProcessMeta> = Mutex::new(ProcessMeta {
    name: None,
    sort_index: None,
    version: 0,
});

pub(crate) fn process_meta() -> MutexGuard<'static, ProcessMeta> {
    PROCESS.lock().unwrap_or_else(|e| e.into_inner())
}

struct Ctl {
    stop: bool,
    requested: u64,
    completed: u64,
}

/// What the session shares with its writer thread.
pub(crate) struct Shared {
    ctl: Mutex<Ctl>,
    cv: Condvar,
    events: AtomicU64,
    dropped: AtomicU64,
    pub(crate) write_errors: AtomicU64,
    pub(crate) bytes: AtomicU64,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            ctl: Mutex::new(Ctl {
                stop: false,
                requested: 0,
                completed: 0,
            }),
            cv: Condvar::new(),
            events: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            write_errors: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    fn ctl(&self) -> MutexGuard<'_, Ctl> {
        self.ctl.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks for a pass over every ring and waits until it is written.
    /// False when the writer did not answer within `timeout`.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut ctl = self.ctl();
        if ctl.stop {
            return false;
        }
        ctl.requested += 1;
        let ticket = ctl.requested;
        self.cv.notify_all();
        while ctl.completed < ticket {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            ctl = self
                .cv
                .wait_timeout(ctl, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    pub fn stop(&self) {
        self.ctl().stop = true;
        self.cv.notify_all();
    }

    pub fn stats(&self) -> Stats {
        Stats {
            events: self.events.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            write_errors: self.write_errors.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

struct RingState {
    /// `,"pid":P,"tid":T` of the ring's thread.
    ids: Vec<u8>,
    meta_version: u64,
}

pub(crate) struct Writer {
    /// Metadata and the writer's own events, written before the lanes' output.
    out: Vec<u8>,
    drainer: Drainer,
    timebase: Timebase,
    pid: u32,
    /// `,"pid":P,"tid":P`: process-level events go on the main thread's track.
    process_ids: Vec<u8>,
    rings: HashMap<usize, RingState>,
    process_version: u64,
    interval: Duration,
    shared: Arc<Shared>,
}

thread_local! {
    static IS_WRITER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as one of the session's writer threads.
pub(crate) fn mark_writer_thread() {
    IS_WRITER.with(|w| w.set(true));
}

/// Whether the calling thread is a writer thread (which must not wait on itself).
pub(crate) fn on_writer_thread() -> bool {
    IS_WRITER.with(|w| w.get())
}

impl Writer {
    pub fn new(
        sink: Box<dyn Write + Send>,
        shared: Arc<Shared>,
        interval: Duration,
        lanes: usize,
        start: Anchor,
    ) -> Writer {
        let pid = std::process::id();
        let mut process_ids = Vec::new();
        ids(&mut process_ids, pid, u64::from(pid));
        Writer {
            out: Vec::new(),
            drainer: Drainer::new(lanes, Arc::new(Sink::new(sink, shared.clone()))),
            timebase: Timebase::new(start),
            pid,
            process_ids,
            rings: HashMap::new(),
            process_version: 0,
            interval,
            shared,
        }
    }

    pub fn run(mut self) {
        IS_WRITER.with(|w| w.set(true));
        self.out.extend_from_slice(b"[\n");
        self.write_out();
        loop {
            let (ticket, stop) = {
                let mut ctl = self.shared.ctl();
                if !ctl.stop && ctl.requested == ctl.completed {
                    ctl = self
                        .shared
                        .cv
                        .wait_timeout(ctl, self.interval)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                (ctl.requested, ctl.stop)
            };
            // Keep draining without sleeping while the rings are filling up.
            while self.pass() && !stop {}
            if stop {
                self.pass();
                self.trailer();
            }
            self.shared.ctl().completed = ticket;
            self.shared.cv.notify_all();
            if stop {
                return;
            }
        }
    }

    /// One sweep over every ring. Returns true when some ring was more than an
    /// eighth full, i.e. when the writer should not sleep.
    fn pass(&mut self) -> bool {
        let rings: Vec<Arc<Ring>> = ring::registry().clone();
        let snaps: Vec<(bool, u64, u64)> = rings
            .iter()
            .map(|r| {
                // `closed` first: a ring closed before its head was read is
                // drained completely by this pass.
                let closed = r.closed.load(Ordering::Acquire);
                let (tail, head) = r.pending();
                (closed, tail, head)
            })
            .collect();
        if snaps.iter().any(|&(_, tail, head)| head > tail) {
            // Every record below was committed before this anchor was taken.
            self.timebase.advance(clock::anchor());
        }
        self.process_meta();
        let mut busy = false;
        let ids: Vec<Vec<u8>> = rings.iter().map(|r| self.thread_meta(r)).collect();
        // Metadata first: a thread's name precedes its events in the file.
        self.write_out();
        let jobs: Vec<Job> = rings
            .iter()
            .zip(&snaps)
            .zip(ids)
            .filter(|((_, s), _)| s.2 > s.1)
            .map(|((ring, &(_, tail, head)), ids)| {
                busy |= (head - tail) * 8 > ring.room_to_end(0);
                Job {
                    ring: ring.clone(),
                    ids,
                    tail,
                    head,
                }
            })
            .collect();
        let events = self.drainer.drain(jobs, &self.timebase);
        self.shared.events.fetch_add(events, Ordering::Relaxed);
        self.report_drops(&rings);
        let gone: Vec<usize> = rings
            .iter()
            .zip(&snaps)
            .filter(|(_, s)| s.0)
            .map(|(r, _)| Arc::as_ptr(r) as usize)
            .collect();
        if !gone.is_empty() {
            ring::registry().retain(|r| !gone.contains(&(Arc::as_ptr(r) as usize)));
            for key in gone {
                self.rings.remove(&key);
            }
        }
        self.write_out();
        busy
    }

    /// The ring's `,"pid":P,"tid":T`; writes its thread's metadata to `out`
    /// when it changed.
    fn thread_meta(&mut self, ring: &Ring) -> Vec<u8> {
        let key = ring as *const Ring as usize;
        let pid = self.pid;
        let state = self.rings.entry(key).or_insert_with(|| {
            let mut v = Vec::new();
            ids(&mut v, pid, ring.tid);
            RingState {
                ids: v,
                meta_version: 0,
            }
        });
        let meta = ring.meta();
        if meta.version != state.meta_version {
            state.meta_version = meta.version;
            if let Some(name) = &meta.name {
                metadata(&mut self.out, b"thread_name", &state.ids, |o| {
                    o.extend_from_slice(b"\"name\":");
                    json::string(o, name.as_bytes());
                });
            }
            if let Some(index) = meta.sort_index {
                metadata(&mut self.out, b"thread_sort_index", &state.ids, |o| {
                    o.extend_from_slice(b"\"sort_index\":");
                    json::int(o, index);
                });
            }
        }
        state.ids.clone()
    }

    fn process_meta(&mut self) {
        let meta = process_meta();
        if meta.version == self.process_version {
            return;
        }
        self.process_version = meta.version;
        if let Some(name) = &meta.name {
            metadata(&mut self.out, b"process_name", &self.process_ids, |o| {
                o.extend_from_slice(b"\"name\":");
                json::string(o, name.as_bytes());
            });
        }
        if let Some(index) = meta.sort_index {
            metadata(
                &mut self.out,
                b"process_sort_index",
                &self.process_ids,
                |o| {
                    o.extend_from_slice(b"\"sort_index\":");
                    json::int(o, index);
                },
            );
        }
    }

    /// Collects drops from every ring; when there are new ones, writes the
    /// running total as a counter and as a metadata event.
    fn report_drops(&mut self, rings: &[Arc<Ring>]) {
        let new: u64 = rings
            .iter()
            .map(|r| r.dropped.swap(0, Ordering::Relaxed))
            .sum::<u64>()
            + ring::ORPHAN_DROPS.swap(0, Ordering::Relaxed);
        if new == 0 {
            return;
        }
        let total = self.shared.dropped.fetch_add(new, Ordering::Relaxed) + new;
        let out = &mut self.out;
        out.extend_from_slice(
            b"{\"ph\":\"C\",\"cat\":\"tracescope\",\"name\":\"tracescope dropped events\",\"ts\":",
        );
        json::micros(out, clock::monotonic_ns());
        out.extend_from_slice(&self.process_ids);
        out.extend_from_slice(b",\"args\":{\"dropped\":");
        json::int(out, total);
        out.extend_from_slice(b"}},\n");
        metadata(out, b"tracescope_dropped_events", &self.process_ids, |o| {
            o.extend_from_slice(b"\"count\":");
            json::int(o, total);
        });
    }

    /// Ends the array: a last metadata event with the session's totals, then `]`.
    fn trailer(&mut self) {
        let stats = self.shared.stats();
        let out = &mut self.out;
        out.extend_from_slice(b"{\"ph\":\"M\",\"name\":\"tracescope_stats\"");
        out.extend_from_slice(&self.process_ids);
        out.extend_from_slice(b",\"args\":{\"events\":");
        json::int(out, stats.events);
        out.extend_from_slice(b",\"dropped_events\":");
        json::int(out, stats.dropped);
        out.extend_from_slice(b",\"write_errors\":");
        json::int(out, stats.write_errors);
        out.extend_from_slice(b"}}\n]\n");
        self.write_out();
    }

    fn write_out(&mut self) {
        self.drainer.sink().write(&mut self.out);
    }
}

fn ids(out: &mut Vec<u8>, pid: u32, tid: u64) {
    out.extend_from_slice(b",\"pid\":");
    json::int(out, pid);
    out.extend_from_slice(b",\"tid\":");
    json::int(out, tid);
}

fn metadata(out: &mut Vec<u8>, name: &[u8], ids: &[u8], args: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(b"{\"ph\":\"M\",\"name\":\"");
    out.extend_from_slice(name);
    out.push(b'"');
    out.extend_from_slice(ids);
    out.extend_from_slice(b",\"args\":{");
    args(out);
    out.extend_from_slice(b"}},\n");
}
