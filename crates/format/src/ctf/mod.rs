//! CTF 1.8: Chrome's compact events as a CTF trace directory (`docs/architecture.md`,
//! "Binary encodings"), and a reader for it
//! and for other CTF traces.
//!
//! # Writing: [`write_dir`]
//! `write_dir(dir, &events, &CtfWriteOptions)` writes `dir/metadata` (TSDL text) and
//! `dir/chrome_0` (one stream of little-endian, byte-aligned packets). Each event
//! is mapped to Chrome's compact model by [`crate::etw::to_chrome()`] (the same
//! lossless reserved-argument mapping as ETW: see [`crate::etw`]); one event class
//! per opcode used, named `Chrome<Type>`, with id = the ETW opcode and fields laid
//! out as Chrome lays them out:
//!
//! ```text
//! string name; xint64 id; string categories;
//! struct { string arg_name; string arg_value; } arguments[N];   // N = 1..7, absent if 0
//! uint32 stack_size; xint32 stack[stack_size];                  // xint64 for 64-bit stacks
//! ```
//!
//! Additions to the 2013 layout: a `clock` named `chrome` (1 GHz, so cycles are ns;
//! `offset_s` is the floor of the earliest timestamp in seconds, so negative times
//! survive), packet headers (magic 0xC1FC1FC1, uuid, stream_id), packet contexts
//! (timestamp_begin/end, content_size, packet_size, events_discarded = 0,
//! packet_seq_num), an event header (`uint8 id` = opcode, 64-bit timestamp) and an
//! event context (`int64 pid; int64 tid; uint64 seq`). Records are sorted by time
//! (stably) as CTF readers require; `seq` is the event's index in the input, so
//! reading restores the input order. Beside the stream, a hidden record index
//! ([`INDEX_FILE`], see [`mod@index`]) says where each event's record is in input
//! order, so [`CtfFiles::runs`] need not scan the stream to find out.
//!
//! # Reading: [`open_dir`] and [`CtfFiles::events`] (or [`read_dir`])
//! `open_dir(path)` finds the trace directories at or under `path` ([`find_traces`])
//! and opens their files (large stream files mapped); `events()` then decodes them
//! into events that borrow names, categories and other strings from the files, so a
//! read allocates little more than the events themselves. `read_dir(path)` does
//! both and returns events that own their strings. For a trace in tracescope's own
//! layout, [`CtfFiles::runs`] hands the same events over run by run
//! ([`crate::EventRuns`]), so a consumer such as the model never holds them all;
//! [`CtfRuns::with_encoded_args`] leaves each event's args as the bytes of its
//! record's arguments ([`crate::EncodedArgs`], turned into the same JSON text by
//! [`args_json`] when asked), for a consumer that keeps the stream files
//! ([`CtfRuns::files`]) rather than the text of every event's args. Decoding parses the metadata
//! (plain or packetized, [`tsdl`]) and decodes every stream file by its types
//! ([`decode`]): integers of any size, alignment and byte order
//! (bit fields included), enums, floats, strings, structs, variants, static arrays
//! and sequences, text arrays; timestamps of any width (LTTng's 27-bit compact
//! headers) are extended against the running clock.
//!
//! Event classes named `Chrome<Type>` with Chrome's fields (leading `_` ignored, as
//! babeltrace2's `sink.ctf.fs` writes them) become the exact events again; with
//! `seq` in the context, events come back in input order, else by time. Any other
//! event class becomes a generic instant ([`generic`]): name = class name, cat = the
//! trace's `env.domain` (else `ctf`), args = context and payload fields, pid/tid
//! from the context's `vpid`/`pid` and `vtid`/`tid` (else the packet's `cpu_id`).
//! Damaged streams never fail the read: a bad event is a `syntax_error` diagnostic
//! with its byte offset and the rest of its packet is skipped; a bad packet header
//! or context skips the rest of its stream file; a cut-off packet is `truncated`.
//!
//! [`is_ctf_dir`] tells the CLI whether a path holds a CTF trace.

pub mod decode;
mod fast;
mod files;
mod fill;
pub mod generic;
pub mod index;
pub mod lexer;
pub mod metadata;
mod order;
pub mod reader;
mod runs;
pub mod tsdl;
pub mod tsdl_out;
pub mod types;
pub mod writer;

pub use fast::args_json;
pub use files::StreamFile;
pub use index::INDEX_FILE;
pub use metadata::{find_traces, is_ctf_dir, search, Found};
pub use reader::{open_dir, read_dir, read_trace_bytes, CtfFiles};
pub use runs::CtfRuns;
pub use writer::{write_dir, CtfWriteOptions, CtfWriteStats, CTF_MAGIC};

/// A CTF input that cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CtfError {
    #[error("no CTF trace (a directory with a `metadata` file) at or under {0}")]
    NotCtf(String),
    /// A `metadata` file where a trace was looked for, that is not CTF metadata.
    #[error("{path} is not CTF metadata: {reason}")]
    NotMetadata { path: String, reason: String },
    #[error("CTF metadata, line {line}: {message}")]
    Metadata { line: u32, message: String },
    #[error("{0}")]
    Io(String),
}
