//! tracescope-model: the in-memory model of a Chrome trace.
//!
//! A [`Trace`] is built from `tracescope_format::Event`s into plain columnar tables
//! (slices, instants, async slices, flows, counters, objects, samples, metadata,
//! other events) with ids between them, following `docs/reading-rules.md`
//! sections 3 to 12. Every anomaly is a counted diagnostic, never a panic. The model
//! never sees the bytes of a file format: that is `tracescope-format`.

pub mod analysis;
mod arena;
pub mod args;
mod build;
pub mod query;
pub mod stats;
pub mod strings;
pub mod tables;
mod trace;

pub use args::TextRef;
pub use build::{Align, Change, FileInput, Follow};
pub use stats::Stats;
pub use strings::{StrId, StringTable};
pub use tables::*;
pub use trace::{InputFile, LoadOptions, Tables, Trace, TraceInfo, TraceText};

/// Asks the processor to start loading the cache line at `p` (a hint: it reads
/// nothing and cannot fault, whatever the address).
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
