//! Chrome's compact events as ETW payloads, and a record file to carry them
//! (`docs/architecture.md`, "Binary encodings").
//!
//! # Payload
//! [`encode_payload`]/[`decode_payload`] implement Chrome's ETW payload byte for byte (see
//! [`payload`]): opcode = type << 4 | 0x08 if a stack follows | number of args (0-7);
//! payload = name\0, u64 id, categories\0, (arg name\0, arg value\0) × n, and
//! optionally u32 stack size + addresses of 32 or 64 bits ([`Bitness`]).
//!
//! # Mapping to and from [`Event`] ([`to_chrome()`], [`from_chrome()`])
//! The compact model has a type, name, categories, a u64 id, string args and a stack.
//! JSON events have more, so the mapping is lossless through *reserved arguments*,
//! whose names start with `@` and whose values are JSON text:
//!
//! | Event field | carried as |
//! |---|---|
//! | `ph` | the type (`B` Begin, `I` Instant, `E` End, `s`/`t`/`f` Flow*, `S`/`T`/`F` Async*, `N`/`O`/`D` objects, `M`, `C`, `P`); other phases go to the closest type with `@ph` holding the phase (`b`/`n`/`p`/`e` → Async*, `X`, `i`, `R`, unknown and absent → Instant with `@ph`, `null` when absent) |
//! | `X` | a Begin with `@ph:"X"` and `@dur`, plus an End at `ts + dur` with `@ph:"X"`, which decoding drops: JSON→ETW→JSON gives back the `X` |
//! | `name`, `cat` | the name and categories strings; `@name` when absent (`null`) or holding a NUL; empty categories mean no `cat`, so an empty or NUL-holding `cat` rides in `@cat` |
//! | `ts` | the record/CTF timestamp in ns; `@ts: null` when absent (written as 0) |
//! | `dur`, `tts`, `tdur` | `@dur`, `@tts`, `@tdur`: integer ns |
//! | `pid`, `tid` | the header/context when an integer that fits (ETW: u32, CTF: i64); else `@pid`/`@tid` (number, string or `null`) |
//! | `id` | the u64 id when a positive integer; slot 0 means no id (the model's B/E convention); string, zero and negative ids in `@id` (with the integer key in the slot when there is one) |
//! | `id2`, `bind_id`, `sf`, `esf` | `@id2` (`{"local":x}`/`{"global":x}`), `@bind_id`, `@sf`, `@esf` |
//! | `scope`, `s`, `bp`, `cname`, `flow_in`, `flow_out` | `@scope`, `@s`, `@bp`, `@cname`, `@flow_in`, `@flow_out` |
//! | `stack` | the stack when a JSON array of plain integers that fit the bitness (decoded as `[a,b,...]`); else `@stack` |
//! | `estack` | `@estack` |
//! | `args` | one argument per key: string values as they are; other values as `@=key` with compact JSON text (also used for keys starting with `@` and strings holding NUL); `@args` holds the whole value when it is not a non-empty object |
//! | `extra` | `@extra`: a JSON object of the fields |
//!
//! User arguments come first, reserved ones after. When there are more than 7 (the
//! opcode's 3 bits), the 7th argument is `@more`, a JSON object of the remaining
//! name/value pairs in order. Decoding keeps any argument it does not recognise
//! (foreign payloads, malformed reserved values) as a plain string arg.
//! Args compare as compact JSON: `{"a": 1}` comes back as `{"a":1}`.
//!
//! # Record file
//! [`RecordWriter`], [`read_records`] and [`is_record_file`]: a 16-byte file header
//! (`TSETWREC`, version, bitness) and records of a 24-byte header (timestamp ns, pid,
//! tid, opcode, payload length) and the payload; see [`records`].

pub mod chrome;
pub(crate) mod fastjson;
pub mod from_chrome;
pub mod payload;
pub mod records;
pub mod to_chrome;

pub use chrome::{Bitness, ChromePayload, ChromeType, Opcode, MAX_ARGS};
pub use from_chrome::from_chrome;
pub use payload::{decode_payload, encode_payload, EncodeError, PayloadError};
pub use records::{
    decode_record, encode_event, is_record_file, read_records, EtwRecord, EventEncodeError,
    RecordFileError, RecordWriter,
};
pub use to_chrome::{to_chrome, ChromeRecord, MapOptions};

#[cfg(doc)]
use crate::Event;
