//! tracescope-format: the Chrome Trace Event Format as data.
//!
//! This crate owns the [`Event`] type, the waist of tracescope's hourglass: every reader
//! (JSON, CTF, ETW records) produces `Event`s and every writer consumes them. It also
//! holds the codecs themselves and the [`Diagnostics`] that readers fill in instead of
//! failing. It knows nothing about slices, tracks or nesting: that is `tracescope-model`.

pub mod ctf;
pub mod diag;
pub mod etw;
pub mod event;
#[doc(hidden)]
pub mod fuzzing;
pub mod id;
pub mod json;
mod pending;
pub mod runs;
pub mod source;
pub mod time;
mod zstd_frames;

pub use diag::{DiagKind, Diagnostic, Diagnostics, Occurrence, Severity};
pub use event::{EncodedArgs, Event, RawJson};
pub use id::{Id, Id2, Int64, Pid};
pub use runs::EventRuns;
pub use source::{Compression, RatioExceeded, Source, SourceOptions};
