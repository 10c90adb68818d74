//! Draining rings into the sink, on one or two threads.
//!
//! Formatting JSON is most of the writer's work, so when a pass has many
//! records the rings are split between the writer thread and a helper thread
//! (started once per session), each formatting its own rings into its own
//! buffer ([`Lane`]). A ring is drained by
//! one lane per pass and passes do not overlap, so each thread's events stay in
//! order in the file. Lanes write whole lines to the sink under its lock, so
//! the file is a sequence of complete events whatever the interleaving, and
//! never has a hole (writes are never concurrent).

use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::clock::Timebase;
use crate::format::Formatter;
use crate::record::{header_kind, header_len, KIND_PAD};
use crate::ring::Ring;
use crate::writer::Shared;

/// Bytes of formatted output a lane holds before writing them out mid-pass.
pub(crate) const OUT_CHUNK: usize = 1 << 20;

/// Below this many pending words (about 20,000 events) one lane drains everything:
/// starting the helper would cost more than it saves.
const PARALLEL_MIN_WORDS: u64 = 1 << 16;

/// The sink, shared by the lanes.
pub(crate) struct Sink {
    sink: Mutex<Box<dyn Write + Send>>,
    shared: Arc<Shared>,
}

impl Sink {
    pub fn new(sink: Box<dyn Write + Send>, shared: Arc<Shared>) -> Sink {
        Sink {
            sink: Mutex::new(sink),
            shared,
        }
    }

    /// Writes and empties `buf` (whole lines) with `write_all` + `flush`.
    pub fn write(&self, buf: &mut Vec<u8>) {
        if buf.is_empty() {
            return;
        }
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        match sink.write_all(buf).and_then(|_| sink.flush()) {
            Ok(()) => {
                self.shared
                    .bytes
                    .fetch_add(buf.len() as u64, Ordering::Relaxed);
            }
            Err(_) => {
                self.shared.write_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
        buf.clear();
    }
}

/// The records of one ring to drain in this pass.
pub(crate) struct Job {
    pub ring: Arc<Ring>,
    /// `,"pid":P,"tid":T` of the ring's thread.
    pub ids: Vec<u8>,
    pub tail: u64,
    pub head: u64,
}

/// One formatting thread's buffer and state.
pub(crate) struct Lane {
    out: Vec<u8>,
    format: Formatter,
}

impl Lane {
    pub fn new() -> Lane {
        Lane {
            out: Vec::with_capacity(OUT_CHUNK + (64 << 10)),
            format: Formatter::default(),
        }
    }

    /// Formats the jobs' records and writes them; returns the events written.
    fn drain_all(&mut self, jobs: &[Job], tb: &Timebase, sink: &Sink) -> u64 {
        let mut events = 0;
        for job in jobs {
            events += self.drain(job, tb, sink);
        }
        sink.write(&mut self.out);
        events
    }

    fn drain(&mut self, job: &Job, tb: &Timebase, sink: &Sink) -> u64 {
        let ring = &*job.ring;
        let mut pos = job.tail;
        let mut events = 0u64;
        while pos < job.head {
            // SAFETY: positions between tail and head hold committed records.
            let h = unsafe { ring.words(pos, 1) }[0];
            let len = header_len(h);
            if len == 0 || pos + len as u64 > job.head || len as u64 > ring.room_to_end(pos) {
                // Never produced by `Ring::reserve`; skip the rest rather than guess.
                break;
            }
            if header_kind(h) != KIND_PAD {
                // SAFETY: as above, and the record does not wrap (checked).
                let rec = unsafe { ring.words(pos, len) };
                if self.format.event(&mut self.out, rec, &job.ids, tb) {
                    events += 1;
                }
            }
            pos += len as u64;
            if self.out.len() >= OUT_CHUNK {
                // Written: give the space back to the producer now.
                sink.write(&mut self.out);
                ring.release(pos);
            }
        }
        ring.release(job.head);
        events
    }
}

/// Work for the helper: its share of a pass.
struct Batch {
    jobs: Vec<Job>,
    timebase: Arc<Timebase>,
}

/// The helper thread and the channels to it.
struct Helper {
    work: Sender<Batch>,
    done: Receiver<u64>,
    thread: JoinHandle<()>,
}

/// Drains the rings of each pass, with a helper thread when there are two lanes.
pub(crate) struct Drainer {
    lane: Lane,
    helper: Option<Helper>,
    sink: Arc<Sink>,
}

impl Drainer {
    /// `lanes`: 1, or 2 for a helper thread (none if it cannot be started).
    pub fn new(lanes: usize, sink: Arc<Sink>) -> Drainer {
        let helper = (lanes > 1).then(|| Helper::start(sink.clone())).flatten();
        Drainer {
            lane: Lane::new(),
            helper,
            sink,
        }
    }

    pub fn sink(&self) -> &Sink {
        &self.sink
    }

    /// Drains `jobs`, splitting them with the helper when there is enough to
    /// do; returns the events written.
    pub fn drain(&mut self, mut jobs: Vec<Job>, tb: &Timebase) -> u64 {
        let total: u64 = jobs.iter().map(|j| j.head - j.tail).sum();
        let Some(helper) = self
            .helper
            .as_ref()
            .filter(|_| total >= PARALLEL_MIN_WORDS && jobs.len() > 1)
        else {
            return self.lane.drain_all(&jobs, tb, &self.sink);
        };
        // Largest first, each to the lighter lane: the lanes finish together.
        jobs.sort_by_key(|j| std::cmp::Reverse(j.head - j.tail));
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        let (mut wm, mut wt) = (0, 0);
        for job in jobs {
            let w = job.head - job.tail;
            if wm <= wt {
                wm += w;
                mine.push(job);
            } else {
                wt += w;
                theirs.push(job);
            }
        }
        let batch = Batch {
            jobs: theirs,
            timebase: Arc::new(tb.clone()),
        };
        if let Err(back) = helper.work.send(batch) {
            // The helper is gone (it can only have panicked): do its share here.
            self.helper = None;
            let events = self.lane.drain_all(&back.0.jobs, tb, &self.sink);
            return events + self.lane.drain_all(&mine, tb, &self.sink);
        }
        let events = self.lane.drain_all(&mine, tb, &self.sink);
        // A pass ends when both lanes are done: rings are drained in order.
        match helper.done.recv() {
            Ok(theirs) => events + theirs,
            Err(_) => {
                self.helper = None;
                events
            }
        }
    }
}

impl Helper {
    fn start(sink: Arc<Sink>) -> Option<Helper> {
        let (work, work_rx) = channel::<Batch>();
        let (done_tx, done) = channel();
        let thread = std::thread::Builder::new()
            .name("tracescope-writer-2".into())
            .spawn(move || {
                crate::writer::mark_writer_thread();
                let mut lane = Lane::new();
                for batch in work_rx {
                    let events = lane.drain_all(&batch.jobs, &batch.timebase, &sink);
                    if done_tx.send(events).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Helper { work, done, thread })
    }
}

impl Drop for Drainer {
    fn drop(&mut self) {
        if let Some(h) = self.helper.take() {
            drop(h.work); // ends the helper's loop
            let _ = h.thread.join();
        }
    }
}
