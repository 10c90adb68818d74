//! Record Chrome Trace Event Format traces from a running Rust (or C) program.
//!
//! `tracescope-record` is the instrumentation side of tracescope: trace point
//! macros in the style of Chrome's `TRACE_EVENT0`, an optional `tracing` layer
//! (feature `tracing`) and a C ABI (feature `capi`, header
//! `include/tracescope.h`). A trace point costs a few nanoseconds when enabled
//! and one relaxed load and a branch when its category is off.
//!
//! ```no_run
//! use tracescope_record::{trace_counter, trace_event, trace_instant};
//!
//! let _trace = tracescope_record::Builder::new().to_file("trace.json")?;
//! tracescope_record::set_thread_name("main");
//! for i in 0..3u64 {
//!     trace_event!("demo", "step", "i" => i);
//!     trace_counter!("demo", "progress", "done" => i);
//! }
//! trace_instant!("demo", "done");
//! // Dropping `_trace` drains every buffer and ends the JSON array.
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! How it works: each thread appends compact binary records (a header, a tick
//! count, a pointer to the static call site, typed arguments) to its own ring
//! buffer, with no lock and no allocation. A writer thread drains the rings at
//! least every 100 ms (every 10 ms by default), converts ticks (the TSC where it
//! is invariant) to `CLOCK_MONOTONIC` microseconds, formats JSON and writes it
//! in the array form, one event per line, so that the file is a loadable trace
//! after every write, also when the program is killed. A full ring drops events;
//! drops are counted and written into the trace as the counter
//! `tracescope dropped events` and the metadata event `tracescope_dropped_events`.
//! A panic hook and SIGINT/SIGTERM handlers flush before the process dies.
//!
//! What it is not: not a sampler or profiler (only instrumented code shows up),
//! not a reader (that is `tracescope-format`), and not a distributed tracing
//! client: events go to one local file or writer, in the process's own clock.

mod args;
mod callsite;
mod category;
mod clock;
mod drain;
mod format;
mod json;
mod macros;
mod raw_out;
mod record;
mod ring;
mod session;
mod signals;
#[cfg(feature = "tracing")]
mod span_table;
mod writer;

#[cfg(feature = "capi")]
pub mod capi;
#[cfg(feature = "tracing")]
mod layer;

pub use args::{debug, display, AsId, DebugArg, DisplayArg, ToArg};
pub use callsite::{category_enabled, set_categories, Callsite};
pub use category::CategoryFilter;
pub use clock::{monotonic_ns, uses_tsc};
pub use record::{ScopeGuard, MAX_STR};
pub use ring::os_tid;
pub use session::{flush, init_from_env, is_active, Builder, Guard};
pub use writer::Stats;

#[cfg(feature = "tracing")]
pub use layer::TracescopeLayer;

/// Names the calling thread in the trace (a `thread_name` metadata event).
/// Threads named with `std::thread::Builder::name` are named automatically.
pub fn set_thread_name(name: &str) {
    ring::update_thread_meta(|m| m.name = Some(name.to_string()));
}

/// Orders the calling thread among its process's threads (lower first).
pub fn set_thread_sort_index(index: i64) {
    ring::update_thread_meta(|m| m.sort_index = Some(index));
}

/// Names the process in the trace (a `process_name` metadata event).
pub fn set_process_name(name: &str) {
    let mut meta = writer::process_meta();
    meta.name = Some(name.to_string());
    meta.version += 1;
}

/// Orders the process among the processes of a merged trace (lower first).
pub fn set_process_sort_index(index: i64) {
    let mut meta = writer::process_meta();
    meta.sort_index = Some(index);
    meta.version += 1;
}

#[doc(hidden)]
pub mod __private {
    pub use crate::args::{ArgList, AsId, ToArg};
    pub use crate::callsite::Callsite;
    pub use crate::record::{emit, scope};
    pub use crate::record::{
        F_FLOW_IN, F_FLOW_OUT, KIND_ASYNC_BEGIN, KIND_ASYNC_END, KIND_ASYNC_STEP, KIND_BEGIN,
        KIND_COUNTER, KIND_END, KIND_FLOW_END, KIND_FLOW_START, KIND_FLOW_STEP, KIND_INSTANT_G,
        KIND_INSTANT_P, KIND_INSTANT_T, KIND_LEGACY_ASYNC_BEGIN, KIND_LEGACY_ASYNC_END,
        KIND_LEGACY_ASYNC_STEP_INTO, KIND_LEGACY_ASYNC_STEP_PAST, KIND_OBJECT_DELETE,
        KIND_OBJECT_NEW, KIND_OBJECT_SNAPSHOT,
    };
}
