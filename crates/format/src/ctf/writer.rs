//! Writes events as a CTF 1.8 trace directory in Chrome's layout.
//!
//! One stream file (`chrome_0`), packets of about [`CtfWriteOptions::packet_bytes`]
//! padded to 4 KiB, one event class per opcode used (so each class has its static
//! `arguments[N]` and optional stack, exactly as Chrome lays them out). Event
//! payloads are the ETW payload bytes: Chrome's CTF fields are byte-aligned
//! little-endian and in the same order, so one encoder serves both.
//!
//! Records are written sorted by timestamp (stably), because CTF readers such as
//! babeltrace2 require time to go forward within a stream; the event context's
//! `seq` keeps each event's index in the input so readers can restore file order.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use super::fast::{detect, scan_packet, FastLayout, Packet};
use super::index::{self, INDEX_FILE, OFFSET_BITS};
use super::tsdl::parse_metadata;
use super::tsdl_out::{metadata_text, TraceLayout};
use crate::etw::to_chrome::stack_addresses;
use crate::etw::{encode_payload, to_chrome, Bitness, EventEncodeError, MapOptions};
use crate::Event;

/// Packet header magic (CTF 1.8 section 5).
pub const CTF_MAGIC: u32 = 0xC1FC_1FC1;
/// Bytes before the first event of a packet: header (magic, uuid, stream id) and
/// context (timestamp_begin/end, content/packet size, events_discarded, packet_seq_num).
pub const PACKET_PREAMBLE: usize = 4 + 16 + 4 + 6 * 8;
/// Event header (id u8, timestamp u64) and context (pid, tid, seq).
const EVENT_PREAMBLE: usize = 1 + 8 + 3 * 8;
const PAD: usize = 4096;

#[derive(Clone, Debug)]
pub struct CtfWriteOptions {
    /// Target packet size in bytes; an event larger than this gets a packet of its own.
    pub packet_bytes: usize,
    /// Width of stack addresses; `None` picks 32 bits when every address fits
    /// (Chrome's `xint32`), else 64.
    pub bits: Option<Bitness>,
    /// Trace UUID; `None` draws a random one.
    pub uuid: Option<[u8; 16]>,
}

impl Default for CtfWriteOptions {
    fn default() -> Self {
        CtfWriteOptions {
            packet_bytes: 256 << 10,
            bits: None,
            uuid: None,
        }
    }
}

/// What [`write_dir`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CtfWriteStats {
    /// CTF events (an `X` counts two).
    pub records: u64,
    pub packets: u64,
    /// Bytes of metadata and stream files.
    pub bytes: u64,
}

fn random_uuid() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut u = [0u8; 16];
    for (i, half) in u.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        half.copy_from_slice(&h.finish().to_le_bytes());
    }
    u[6] = (u[6] & 0x0f) | 0x40; // version 4
    u[8] = (u[8] & 0x3f) | 0x80; // variant 1
    u
}

/// The seconds of the clock offset: the floor of the earliest time, so every
/// timestamp is a non-negative count of ns from it (negative times survive).
fn clock_base_s(min_ts: i64) -> i64 {
    min_ts.div_euclid(1_000_000_000)
}

struct Packets<W: Write> {
    out: W,
    uuid: [u8; 16],
    buf: Vec<u8>,
    first_ts: u64,
    last_ts: u64,
    seq: u64,
    target: usize,
    stats: CtfWriteStats,
    /// The record index noted packet by packet; `None` once a packet is not one
    /// the fast reader scans (the trace then has no index).
    index: Option<IndexNotes>,
}

/// The record index ([`super::index`]) as the packets are written: each packet is
/// scanned as the reader's scan would scan it, so the index names exactly the
/// records that scan would find.
struct IndexNotes {
    layout: FastLayout,
    preambles: Vec<u8>,
    /// Per event (its `seq`), its record; `u64::MAX` until noted.
    records: Vec<u64>,
}

impl IndexNotes {
    /// Notes packet number `number`, `bytes` (its content ends at `content`);
    /// `false` when the fast reader would not scan it, or a `seq` is off.
    fn note(&mut self, bytes: &[u8], content: usize, number: u64) -> bool {
        if number >= 1 << (64 - OFFSET_BITS) || bytes.len() as u64 >= 1 << OFFSET_BITS {
            return false;
        }
        let packet = Packet {
            pos: 0,
            start: PACKET_PREAMBLE,
            end: content,
            next: bytes.len(),
        };
        let mut ok = true;
        let records = &mut self.records;
        let scanned = scan_packet(
            bytes,
            packet,
            &self.layout,
            |seq, at| match usize::try_from(seq).ok().and_then(|i| records.get_mut(i)) {
                Some(slot) if *slot == u64::MAX => *slot = number << OFFSET_BITS | at,
                _ => ok = false,
            },
        );
        self.preambles.extend_from_slice(&bytes[..PACKET_PREAMBLE]);
        scanned.is_some() && ok
    }
}

impl<W: Write> Packets<W> {
    fn open(&mut self) {
        self.buf.clear();
        self.buf.extend_from_slice(&CTF_MAGIC.to_le_bytes());
        self.buf.extend_from_slice(&self.uuid);
        self.buf.extend_from_slice(&0u32.to_le_bytes());
        self.buf.resize(PACKET_PREAMBLE, 0);
    }

    fn close(&mut self) -> io::Result<()> {
        if self.buf.len() <= PACKET_PREAMBLE {
            return Ok(());
        }
        let content = self.buf.len();
        let size = content.div_ceil(PAD) * PAD;
        let ctx = [
            self.first_ts,
            self.last_ts,
            content as u64 * 8,
            size as u64 * 8,
            0,
            self.seq,
        ];
        for (i, v) in ctx.iter().enumerate() {
            self.buf[24 + i * 8..32 + i * 8].copy_from_slice(&v.to_le_bytes());
        }
        self.buf.resize(size, 0);
        let number = self.stats.packets;
        if let Some(ix) = &mut self.index {
            if !ix.note(&self.buf, content, number) {
                self.index = None;
            }
        }
        self.out.write_all(&self.buf)?;
        self.stats.packets += 1;
        self.stats.bytes += size as u64;
        self.seq += 1;
        self.open();
        Ok(())
    }

    fn event(&mut self, ev: &[u8], ts: u64) -> io::Result<()> {
        if self.buf.len() > PACKET_PREAMBLE && self.buf.len() + ev.len() > self.target {
            self.close()?;
        }
        if self.buf.len() == PACKET_PREAMBLE {
            self.first_ts = ts;
        }
        self.last_ts = ts;
        let at = self.buf.len();
        self.buf.extend_from_slice(ev);
        // The record's timestamp, relative to the clock base.
        self.buf[at + 1..at + 9].copy_from_slice(&ts.to_le_bytes());
        self.stats.records += 1;
        Ok(())
    }
}

/// Events mapped and encoded in parallel chunks of this many.
const CHUNK: usize = 4096;

/// One chunk's records: encoded events (the timestamp left 0 until the clock base
/// is known) and, per record, its time and where its bytes start.
struct Encoded {
    bytes: Vec<u8>,
    recs: Vec<(i64, u32)>,
    opcodes: [bool; 256],
}

fn encode_chunk(
    events: &[Event<'_>],
    first: usize,
    map: &MapOptions,
    bits: Bitness,
) -> io::Result<Encoded> {
    let mut out = Encoded {
        bytes: Vec::with_capacity(events.len() * 192),
        recs: Vec::with_capacity(events.len() * 3 / 2),
        opcodes: [false; 256],
    };
    let mut one = Vec::with_capacity(2);
    for (i, e) in events.iter().enumerate() {
        to_chrome(e, map, &mut one);
        let seq = (first + i) as u64;
        for r in one.drain(..) {
            let at = out.bytes.len();
            out.bytes.push(0);
            out.bytes.extend_from_slice(&0u64.to_le_bytes());
            out.bytes.extend_from_slice(&r.pid.to_le_bytes());
            out.bytes.extend_from_slice(&r.tid.to_le_bytes());
            out.bytes.extend_from_slice(&seq.to_le_bytes());
            debug_assert_eq!(out.bytes.len() - at, EVENT_PREAMBLE);
            let op = encode_payload(&r.payload, bits, &mut out.bytes)
                .map_err(|err| EventEncodeError::new(e, err))?;
            out.bytes[at] = op.0;
            out.opcodes[usize::from(op.0)] = true;
            let at = u32::try_from(at).map_err(|_| io::Error::other("chunk over 4 GiB"))?;
            out.recs.push((r.ts, at));
        }
    }
    Ok(out)
}

/// Writes the record index of the stream `stats` counts, when every event's record
/// was noted; else removes any index an earlier trace left in `dir`.
fn write_index(dir: &Path, notes: Option<IndexNotes>, stats: &CtfWriteStats) -> io::Result<()> {
    let path = dir.join(INDEX_FILE);
    match notes.filter(|ix| !ix.records.contains(&u64::MAX)) {
        Some(ix) => {
            let streams = [(stats.bytes, stats.packets)];
            fs::write(path, index::encode(&streams, &ix.preambles, &ix.records))
        }
        None => match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
    }
}

/// Writes `events` as a CTF trace in directory `dir` (created if missing; a
/// `metadata`, a `chrome_0` and a record index ([`super::index`]) inside are
/// replaced).
pub fn write_dir(
    dir: &Path,
    events: &[Event<'_>],
    opts: &CtfWriteOptions,
) -> io::Result<CtfWriteStats> {
    let map = MapOptions::ctf(opts.bits.unwrap_or(Bitness::B64));
    // 32-bit stacks (Chrome's `xint32`) unless an address needs more.
    let bits = opts.bits.unwrap_or_else(|| {
        let wide = events.par_iter().any(|e| {
            e.stack.as_ref().is_some_and(|s| {
                stack_addresses(s, Bitness::B64)
                    .is_some_and(|a| a.iter().any(|&a| a > u32::MAX as u64))
            })
        });
        if wide {
            Bitness::B64
        } else {
            Bitness::B32
        }
    });
    let chunks: Vec<Encoded> = events
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, ev)| encode_chunk(ev, c * CHUNK, &map, bits))
        .collect::<io::Result<_>>()?;
    // Records by time, stably (input order among equal times): sort small keys, not
    // the records.
    let mut keys: Vec<(i64, u32, u32)> =
        Vec::with_capacity(chunks.iter().map(|c| c.recs.len()).sum());
    for (c, ch) in chunks.iter().enumerate() {
        keys.extend(
            ch.recs
                .iter()
                .enumerate()
                .map(|(i, &(ts, _))| (ts, c as u32, i as u32)),
        );
    }
    if !keys.is_sorted_by_key(|k| k.0) {
        keys.sort_by_key(|k| k.0);
    }
    let base_s = keys.first().map_or(0, |k| clock_base_s(k.0));
    let base_ns = i128::from(base_s) * 1_000_000_000;

    let mut opcodes = [false; 256];
    for ch in &chunks {
        for (o, used) in opcodes.iter_mut().zip(ch.opcodes) {
            *o |= used;
        }
    }
    let uuid = opts.uuid.unwrap_or_else(random_uuid);
    fs::create_dir_all(dir)?;
    let layout = TraceLayout {
        uuid,
        offset_s: base_s,
        bits,
        opcodes: &opcodes,
    };
    let meta = metadata_text(&layout);
    fs::write(dir.join("metadata"), &meta)?;

    let file = fs::File::create(dir.join("chrome_0"))?;
    let mut p = Packets {
        out: io::BufWriter::with_capacity(1 << 20, file),
        uuid,
        buf: Vec::with_capacity(opts.packet_bytes + PAD),
        first_ts: 0,
        last_ts: 0,
        seq: 0,
        target: opts.packet_bytes.max(PACKET_PREAMBLE + 64),
        stats: CtfWriteStats::default(),
        index: (parse_metadata(&meta).ok().as_ref())
            .and_then(detect)
            .map(|layout| IndexNotes {
                layout,
                preambles: Vec::new(),
                records: vec![u64::MAX; events.len()],
            }),
    };
    p.open();
    for &(ts, c, i) in &keys {
        // Non-negative and below 2^64: ts >= base and both are i64.
        let t = (i128::from(ts) - base_ns) as u64;
        let ch = &chunks[c as usize];
        let i = i as usize;
        let at = ch.recs[i].1 as usize;
        let end = ch.recs.get(i + 1).map_or(ch.bytes.len(), |r| r.1 as usize);
        p.event(&ch.bytes[at..end], t)?;
    }
    p.close()?;
    p.out.flush()?;
    write_index(dir, p.index, &p.stats)?;
    let mut stats = p.stats;
    stats.bytes += meta.len() as u64;
    Ok(stats)
}
