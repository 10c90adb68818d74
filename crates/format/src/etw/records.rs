//! A record stream file, so ETW-shaped Chrome events travel without Windows.
//!
//! ```text
//! file header, 16 bytes:
//!   0  magic      8 bytes  "TSETWREC"
//!   8  version    u16      1
//!  10  bits       u8       32 or 64: width of stack addresses in the payloads
//!  11  reserved   5 bytes  zero
//! then records, each a 24-byte header and its payload:
//!   0  timestamp  i64      nanoseconds (the Event's ts)
//!   8  pid        u32      ETW's process id
//!  12  tid        u32      ETW's thread id
//!  16  opcode     u8       type << 4 | 0x08 if stack | number of args
//!  17  reserved   3 bytes  zero
//!  20  length     u32      payload bytes that follow
//! ```
//!
//! All integers little-endian. Pids and tids outside `u32` (and string ones) ride in
//! the payload's `@pid`/`@tid` arguments.

use std::io::{self, Write};

use super::chrome::Bitness;
use super::from_chrome::from_chrome;
use super::payload::{decode_payload, encode_payload, EncodeError, PayloadError};
use super::to_chrome::{to_chrome, ChromeRecord, MapOptions};
use crate::{DiagKind, Diagnostics, Event};

pub const MAGIC: &[u8; 8] = b"TSETWREC";
pub const VERSION: u16 = 1;
pub const FILE_HEADER_LEN: usize = 16;
pub const RECORD_HEADER_LEN: usize = 24;

/// True when `bytes` start with the record file magic.
pub fn is_record_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// One ETW event: header fields and the encoded Chrome payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtwRecord {
    pub ts: i64,
    pub pid: u32,
    pub tid: u32,
    pub opcode: u8,
    pub payload: Vec<u8>,
}

/// An event that has no ETW or CTF record: which event, and why (the field that
/// cannot be encoded). A writer never reports such an event as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the event at byte {offset} of the input ({name}) cannot be written: {error}")]
pub struct EventEncodeError {
    /// The event's byte offset in its input.
    pub offset: u64,
    /// The event's name (or `no name`), quoted.
    pub name: String,
    pub error: EncodeError,
}

impl EventEncodeError {
    pub(crate) fn new(ev: &Event<'_>, error: EncodeError) -> Self {
        EventEncodeError {
            offset: ev.offset,
            name: ev
                .name
                .as_deref()
                .map_or_else(|| "no name".to_string(), |n| format!("{n:?}")),
            error,
        }
    }
}

impl From<EventEncodeError> for io::Error {
    fn from(e: EventEncodeError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

fn encode_records(
    ev: &Event<'_>,
    recs: &[ChromeRecord<'_>],
    bits: Bitness,
    out: &mut Vec<EtwRecord>,
) -> Result<(), EventEncodeError> {
    for r in recs {
        let mut payload = Vec::new();
        // The mapping escapes what a payload string cannot hold, so this fails only
        // on what no record can carry; never write a record that reads back as
        // nothing.
        let op = encode_payload(&r.payload, bits, &mut payload)
            .map_err(|e| EventEncodeError::new(ev, e))?;
        out.push(EtwRecord {
            ts: r.ts,
            pid: r.pid as u32,
            tid: r.tid as u32,
            opcode: op.0,
            payload,
        });
    }
    Ok(())
}

/// Encodes one event as ETW records: one, or two for `X` (Begin, then End at
/// `ts + dur`).
pub fn encode_event(ev: &Event<'_>, bits: Bitness) -> Result<Vec<EtwRecord>, EventEncodeError> {
    let mut recs = Vec::with_capacity(2);
    to_chrome(ev, &MapOptions::etw(bits), &mut recs);
    let mut out = Vec::with_capacity(recs.len());
    encode_records(ev, &recs, bits, &mut out)?;
    Ok(out)
}

/// Decodes one ETW record into its event; `Ok(None)` for the End half of an `X`.
pub fn decode_record(
    r: &EtwRecord,
    bits: Bitness,
    offset: u64,
) -> Result<Option<Event<'static>>, PayloadError> {
    let p = decode_payload(r.opcode, &r.payload, bits)?;
    Ok(from_chrome(p, r.ts, i64::from(r.pid), i64::from(r.tid), offset).map(Event::into_owned))
}

/// Writes a record file.
pub struct RecordWriter<W: Write> {
    w: W,
    bits: Bitness,
    buf: Vec<u8>,
    recs: Vec<EtwRecord>,
}

impl<W: Write> RecordWriter<W> {
    /// Writes the file header.
    pub fn new(mut w: W, bits: Bitness) -> io::Result<Self> {
        let mut h = [0u8; FILE_HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8..10].copy_from_slice(&VERSION.to_le_bytes());
        h[10] = (bits.bytes() * 8) as u8;
        w.write_all(&h)?;
        Ok(RecordWriter {
            w,
            bits,
            buf: Vec::with_capacity(1 << 16),
            recs: Vec::new(),
        })
    }

    /// Writes the event's records; an event that cannot be encoded is an error
    /// ([`EventEncodeError`] inside an `InvalidData` [`io::Error`]) and nothing of it
    /// is written.
    pub fn write_event(&mut self, ev: &Event<'_>) -> io::Result<()> {
        let mut recs = std::mem::take(&mut self.recs);
        recs.clear();
        let mut chrome = Vec::with_capacity(2);
        to_chrome(ev, &MapOptions::etw(self.bits), &mut chrome);
        encode_records(ev, &chrome, self.bits, &mut recs)?;
        for r in &recs {
            self.write_record(r)?;
        }
        self.recs = recs;
        Ok(())
    }

    pub fn write_record(&mut self, r: &EtwRecord) -> io::Result<()> {
        let len = u32::try_from(r.payload.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "payload over 4 GiB"))?;
        self.buf.extend_from_slice(&r.ts.to_le_bytes());
        self.buf.extend_from_slice(&r.pid.to_le_bytes());
        self.buf.extend_from_slice(&r.tid.to_le_bytes());
        self.buf.extend_from_slice(&[r.opcode, 0, 0, 0]);
        self.buf.extend_from_slice(&len.to_le_bytes());
        self.buf.extend_from_slice(&r.payload);
        if self.buf.len() >= 1 << 16 {
            self.w.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.write_all(&self.buf)?;
        self.w.flush()?;
        Ok(self.w)
    }
}

/// A file that is not a record file at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordFileError {
    #[error("not a tracescope ETW record file (no TSETWREC magic at byte 0)")]
    BadMagic,
    #[error("unsupported record file version {0} at byte 8")]
    Version(u16),
    #[error("stack address width {0} at byte 10 is neither 32 nor 64")]
    Bits(u8),
}

/// Reads a record file. A bad payload skips its record with a `syntax_error`
/// diagnostic naming the file offset; a cut-off last record is `truncated`. Events
/// borrow their strings from `bytes` where they can.
pub fn read_records(bytes: &[u8]) -> Result<(Vec<Event<'_>>, Diagnostics), RecordFileError> {
    if bytes.len() < FILE_HEADER_LEN || !is_record_file(bytes) {
        return Err(RecordFileError::BadMagic);
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(RecordFileError::Version(version));
    }
    let bits = match bytes[10] {
        32 => Bitness::B32,
        64 => Bitness::B64,
        b => return Err(RecordFileError::Bits(b)),
    };
    let mut diags = Diagnostics::new();
    let mut events = Vec::with_capacity(bytes.len() / 64);
    let mut pos = FILE_HEADER_LEN;
    while pos < bytes.len() {
        let Some(h) = bytes.get(pos..pos + RECORD_HEADER_LEN) else {
            diags.add(DiagKind::Truncated, pos as u64, || {
                format!("record header at byte {pos} is cut off")
            });
            break;
        };
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let ts = i64::from_le_bytes(h[0..8].try_into().unwrap_or_default());
        let (pid, tid, opcode, len) = (u32_at(8), u32_at(12), h[16], u32_at(20) as usize);
        let start = pos + RECORD_HEADER_LEN;
        let Some(payload) = bytes.get(start..start.saturating_add(len)) else {
            diags.add(DiagKind::Truncated, pos as u64, || {
                format!(
                    "record at byte {pos} announces {len} payload bytes, {} left",
                    bytes.len() - start
                )
            });
            break;
        };
        match decode_payload(opcode, payload, bits) {
            Ok(p) => events.extend(from_chrome(
                p,
                ts,
                i64::from(pid),
                i64::from(tid),
                pos as u64,
            )),
            Err(e) => diags.add(DiagKind::SyntaxError, (start as u64) + e.offset, || {
                format!(
                    "record at byte {pos}: payload byte {} (file byte {}): {}",
                    e.offset,
                    start as u64 + e.offset,
                    e.message
                )
            }),
        }
        pos = start + len;
    }
    Ok((events, diags))
}
