//! Starting and stopping a recording session; flushing; the panic hook.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::ring::{self, DEFAULT_BUFFER_BYTES};
use crate::writer::{self, Shared, Stats, Writer};
use crate::{callsite, clock, signals};

/// Id of the running session, 0 when none runs.
static ACTIVE_ID: AtomicU32 = AtomicU32::new(0);
static NEXT_ID: AtomicU32 = AtomicU32::new(1);
static SESSION: Mutex<Option<Running>> = Mutex::new(None);

/// How long `flush` waits for the writer before giving up.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

struct Running {
    id: u32,
    shared: Arc<Shared>,
    thread: JoinHandle<()>,
}

fn session() -> MutexGuard<'static, Option<Running>> {
    SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

#[inline(always)]
pub(crate) fn current_id() -> u32 {
    ACTIVE_ID.load(Ordering::Relaxed)
}

/// Whether a recording session is running.
pub fn is_active() -> bool {
    current_id() != 0
}

/// Configures and starts a recording session.
///
/// ```no_run
/// let _guard = tracescope_record::Builder::new()
///     .categories("*,-noisy")
///     .to_file("trace.json")?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    categories: Option<String>,
    buffer_bytes: usize,
    flush_interval: Duration,
    panic_hook: bool,
    signals: bool,
    process_name: Option<String>,
    writer_threads: usize,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// Defaults: categories from `TRACESCOPE_CATEGORIES`, 4 MiB per thread,
    /// a write every 10 ms (or `TRACESCOPE_FLUSH_MS`, 1 to 100), panic hook and SIGINT/SIGTERM handling on, two
    /// writer threads on a multi-core machine.
    pub fn new() -> Builder {
        Builder {
            categories: None,
            buffer_bytes: DEFAULT_BUFFER_BYTES,
            flush_interval: flush_interval_of(std::env::var("TRACESCOPE_FLUSH_MS").ok().as_deref()),
            panic_hook: true,
            signals: true,
            process_name: None,
            writer_threads: match std::thread::available_parallelism() {
                Ok(n) if n.get() > 1 => 2,
                _ => 1,
            },
        }
    }

    /// Replaces the category list (syntax of `TRACESCOPE_CATEGORIES`).
    pub fn categories(mut self, spec: &str) -> Builder {
        self.categories = Some(spec.to_string());
        self
    }

    /// Buffer size per recording thread (rounded up to a power of two, at least
    /// 256 KiB). When a thread's buffer is full its events are dropped and counted.
    /// Applies to threads that record for the first time after the start.
    pub fn buffer_size(mut self, bytes: usize) -> Builder {
        self.buffer_bytes = bytes;
        self
    }

    /// Longest time between two writes when events are pending (1 to 100 ms;
    /// default 10 ms or `TRACESCOPE_FLUSH_MS`). A viewer following the file
    /// (`tracescope view --follow`) sees events at most this much later.
    pub fn flush_interval(mut self, interval: Duration) -> Builder {
        self.flush_interval = interval.clamp(Duration::from_millis(1), Duration::from_millis(100));
        self
    }

    /// Flush (and record a `panic` instant) when any thread panics. Default on.
    pub fn panic_hook(mut self, on: bool) -> Builder {
        self.panic_hook = on;
        self
    }

    /// On SIGINT/SIGTERM, end the trace cleanly and then die of the signal as
    /// usual. Only installed where the signal still has its default action, so a
    /// program's own handler is left alone. Default on.
    pub fn signals(mut self, on: bool) -> Builder {
        self.signals = on;
        self
    }

    /// Threads that format JSON (1 or 2; default 2 where the machine can run
    /// two threads at once). The second only starts for passes with many
    /// pending events; each thread's events stay in order either way.
    pub fn writer_threads(mut self, n: usize) -> Builder {
        self.writer_threads = n.clamp(1, 2);
        self
    }

    /// Names the process in the trace.
    pub fn process_name(mut self, name: &str) -> Builder {
        self.process_name = Some(name.to_string());
        self
    }

    /// Records to a new file at `path` (truncated if it exists).
    pub fn to_file(self, path: impl AsRef<Path>) -> io::Result<Guard> {
        let file = File::create(path)?;
        self.to_writer(file)
    }

    /// Records to any writer; each batch is written with `write_all` + `flush`.
    pub fn to_writer(self, sink: impl Write + Send + 'static) -> io::Result<Guard> {
        start(self, Box::new(sink))
    }
}

/// The flush interval `TRACESCOPE_FLUSH_MS` asks for (milliseconds, clamped to 1 to
/// 100), else 10 ms; a value that is no number is reported and ignored.
fn flush_interval_of(env: Option<&str>) -> Duration {
    let default = Duration::from_millis(10);
    match env.map(str::trim) {
        None | Some("") => default,
        Some(v) => match v.parse::<u64>() {
            Ok(ms) => Duration::from_millis(ms.clamp(1, 100)),
            Err(_) => {
                eprintln!("tracescope-record: TRACESCOPE_FLUSH_MS={v} is not a number of milliseconds; using 10");
                default
            }
        },
    }
}

/// Starts recording to the file named by `TRACESCOPE_FILE`, if it is set.
pub fn init_from_env() -> io::Result<Option<Guard>> {
    match std::env::var_os("TRACESCOPE_FILE") {
        Some(path) if !path.is_empty() => Builder::new().to_file(path).map(Some),
        _ => Ok(None),
    }
}

fn start(builder: Builder, sink: Box<dyn Write + Send>) -> io::Result<Guard> {
    let mut slot = session();
    if slot.is_some() {
        return Err(io::Error::other(
            "a tracescope-record session is already running",
        ));
    }
    clock::init();
    ring::set_buffer_bytes(builder.buffer_bytes);
    if let Some(spec) = &builder.categories {
        callsite::set_categories(spec);
    }
    if let Some(name) = &builder.process_name {
        crate::set_process_name(name);
    }
    // Whatever an earlier session left in the rings (events racing its end) is stale.
    for r in ring::registry().iter() {
        r.release(r.pending().1);
        r.dropped.store(0, Ordering::Relaxed);
    }
    ring::ORPHAN_DROPS.store(0, Ordering::Relaxed);
    let shared = Arc::new(Shared::new());
    let writer = Writer::new(
        sink,
        shared.clone(),
        builder.flush_interval,
        builder.writer_threads,
        clock::anchor(),
    );
    let thread = std::thread::Builder::new()
        .name("tracescope-writer".into())
        .spawn(move || writer.run())?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    *slot = Some(Running {
        id,
        shared: shared.clone(),
        thread,
    });
    ACTIVE_ID.store(id, Ordering::Relaxed);
    drop(slot);
    callsite::set_active(true);
    if builder.panic_hook {
        install_panic_hook();
    }
    if builder.signals {
        signals::install();
    }
    Ok(Guard { id, shared })
}

/// Stops the session `id` (or whichever runs, for `None`): recording stops,
/// the writer drains every buffer, ends the array and exits.
pub(crate) fn stop(id: Option<u32>) {
    let running = {
        let mut slot = session();
        match slot.as_ref() {
            Some(r) if id.is_none_or(|id| id == r.id) => slot.take(),
            _ => None,
        }
    };
    let Some(running) = running else { return };
    callsite::set_active(false);
    ACTIVE_ID.store(0, Ordering::Relaxed);
    running.shared.stop();
    // The writer only ends by returning; a join error would mean it panicked,
    // and there is nothing left to do about that here.
    let _ = running.thread.join();
}

/// Writes everything recorded so far (by any thread, before this call) to the
/// sink and returns once it is written. False when no session runs or the
/// writer did not answer within 5 s.
pub fn flush() -> bool {
    let shared = session().as_ref().map(|r| r.shared.clone());
    match shared {
        Some(shared) if !writer::on_writer_thread() => shared.flush(FLUSH_TIMEOUT),
        _ => false,
    }
}

/// The running session; dropping it stops recording and ends the trace.
#[must_use = "recording stops when the guard is dropped"]
pub struct Guard {
    id: u32,
    shared: Arc<Shared>,
}

impl Guard {
    /// See [`flush`](crate::flush).
    pub fn flush(&self) -> bool {
        !writer::on_writer_thread() && self.shared.flush(FLUSH_TIMEOUT)
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// Stops recording, ends the trace and returns the final counters.
    pub fn finish(self) -> Stats {
        stop(Some(self.id));
        self.shared.stats()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        stop(Some(self.id));
    }
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if is_active() && !writer::on_writer_thread() {
                crate::trace_instant!(process: "tracescope", "panic",
                    "message" => crate::display(info));
                flush();
            }
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flush_interval_from_the_environment() {
        let ms = |v| flush_interval_of(v).as_millis();
        assert_eq!(ms(None), 10);
        assert_eq!(ms(Some("")), 10);
        assert_eq!(ms(Some("50")), 50);
        assert_eq!(ms(Some(" 2 ")), 2);
        assert_eq!(ms(Some("0")), 1);
        assert_eq!(ms(Some("5000")), 100);
        assert_eq!(ms(Some("fast")), 10);
    }
}
