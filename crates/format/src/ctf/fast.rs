//! The fast path for traces in exactly the layout [`super::write_dir`] writes.
//!
//! When the metadata's packet header, stream and every event class are the ones
//! tracescope would write for the same opcodes ([`detect`]), the field order and
//! sizes are known, so events decode straight from the bytes into [`Event`]s without
//! the TSDL interpreter, and packets (independent: every event has a full 64-bit
//! timestamp) decode in parallel. The fast path only takes the happy path: any packet
//! it does not fully understand is handed to the generic decoder, which then emits
//! exactly the diagnostics it always did.

use std::borrow::Cow;

use super::tsdl::parse_metadata;
use super::tsdl_out::{metadata_text, TraceLayout};
use super::types::{ByteOrder, Clock, Metadata};
use super::writer::{CTF_MAGIC, PACKET_PREAMBLE};
use crate::etw::fastjson::{HIGH_BITS, LOW_BITS};
use crate::etw::from_chrome::{chrome_event, ArgList, ChromeFields};
use crate::etw::{Bitness, ChromeType, Opcode};
use crate::{EncodedArgs, Event};

/// One event class of the layout: its type, argument count and stack address width.
#[derive(Clone, Copy, Debug)]
struct Class {
    ty: ChromeType,
    args: usize,
    /// Bytes per stack address when the class has a stack.
    stack: Option<usize>,
}

/// A trace in tracescope's own layout.
#[derive(Clone, Debug)]
pub(crate) struct FastLayout {
    classes: Vec<Option<Class>>,
    clock: Clock,
}

/// The layout when the metadata describes exactly what [`super::write_dir`] writes
/// (same types, names and order; any deviation takes the generic path).
pub(crate) fn detect(meta: &Metadata) -> Option<FastLayout> {
    if meta.byte_order != ByteOrder::Le || meta.events.is_empty() {
        return None;
    }
    let mut opcodes = [false; 256];
    for e in &meta.events {
        let op = u8::try_from(e.id).ok()?;
        Opcode(op).ty()?;
        opcodes[usize::from(op)] = true;
    }
    // The clock the timestamps map to, as the generic reader picks it.
    let clock = meta.clock(Some("chrome")).cloned().unwrap_or_default();
    for bits in [Bitness::B32, Bitness::B64] {
        let text = metadata_text(&TraceLayout {
            uuid: [0; 16],
            offset_s: clock.offset_s,
            bits,
            opcodes: &opcodes,
        });
        let ours = parse_metadata(&text).ok()?;
        let same = ours.packet_header == meta.packet_header
            && ours.streams == meta.streams
            && meta
                .events
                .iter()
                .all(|e| ours.events.iter().any(|o| o == e));
        if same {
            let mut classes = vec![None; 256];
            for (op, _) in opcodes.iter().enumerate().filter(|(_, used)| **used) {
                let o = Opcode(op as u8);
                classes[op] = o.ty().map(|ty| Class {
                    ty,
                    args: o.args(),
                    stack: o.has_stack().then_some(bits.bytes()),
                });
            }
            return Some(FastLayout { classes, clock });
        }
    }
    None
}

/// A packet whose header and context are sound: events from `start` to `end` bytes;
/// the packet with its padding ends at `next`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packet {
    pub pos: u64,
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"))
}

/// Walks the packet headers of a stream file: the packets the fast path can decode,
/// and the byte offset from which the generic reader must take over (a packet whose
/// header, context or size is off, so its diagnostics are the generic ones).
pub(crate) fn split_packets(data: &[u8]) -> (Vec<Packet>, Option<u64>) {
    split_packets_with(data, |_| {})
}

/// [`split_packets`], telling `walked` where each packet found ends.
pub(crate) fn split_packets_with(
    data: &[u8],
    walked: impl FnMut(usize),
) -> (Vec<Packet>, Option<u64>) {
    let preamble = |pos: usize, out: &mut [u8; PACKET_PREAMBLE]| {
        out.copy_from_slice(&data[pos..pos + PACKET_PREAMBLE]);
        true
    };
    split_packets_by(data.len(), preamble, walked)
}

/// [`split_packets_with`] for a stream of `total` bytes whose packet preambles
/// `preamble(pos, out)` reads (`false` when it cannot: the generic reader then
/// takes over from that packet).
pub(crate) fn split_packets_by(
    total: usize,
    mut preamble: impl FnMut(usize, &mut [u8; PACKET_PREAMBLE]) -> bool,
    mut walked: impl FnMut(usize),
) -> (Vec<Packet>, Option<u64>) {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut head = [0u8; PACKET_PREAMBLE];
    while pos < total {
        if total - pos < PACKET_PREAMBLE
            || !preamble(pos, &mut head)
            || u32_at(&head, 0) != CTF_MAGIC
            || u32_at(&head, 20) != 0
        {
            return (out, Some(pos as u64));
        }
        let content_bits = u64_at(&head, 40);
        let packet_bits = u64_at(&head, 48);
        let fits = packet_bits.is_multiple_of(8)
            && content_bits.is_multiple_of(8)
            && content_bits <= packet_bits
            && content_bits >= PACKET_PREAMBLE as u64 * 8
            && packet_bits / 8 <= (total - pos) as u64;
        if !fits {
            return (out, Some(pos as u64));
        }
        out.push(Packet {
            pos: pos as u64,
            start: pos + PACKET_PREAMBLE,
            end: pos + (content_bits / 8) as usize,
            next: pos + (packet_bits / 8) as usize,
        });
        pos += (packet_bits / 8) as usize;
        walked(pos);
    }
    (out, None)
}

/// Reads the fields of one event, `None` at anything unexpected.
struct Bytes<'a> {
    d: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.end - self.pos {
            return None;
        }
        self.pos += n;
        self.d.get(self.pos - n..self.pos)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// A NUL-terminated string, without the NUL.
    #[inline(always)]
    fn string(&mut self) -> Option<Str<'a>> {
        let rest = self.d.get(self.pos..self.end)?;
        let (n, ascii) = nul_ascii(rest)?;
        self.pos += n + 1;
        Some(Str {
            bytes: &rest[..n],
            ascii,
        })
    }
}

impl Bytes<'_> {
    /// Moves past a NUL-terminated string.
    #[inline(always)]
    fn skip_string(&mut self) -> Option<()> {
        self.skip_strings(1)
    }

    /// Moves past `n` NUL-terminated strings.
    #[inline(always)]
    fn skip_strings(&mut self, n: usize) -> Option<()> {
        let rest = self.d.get(self.pos..self.end)?;
        self.pos += strings_len(rest, n)?;
        Some(())
    }
}

/// A string field's bytes, and whether they are all ASCII (so valid UTF-8).
#[derive(Clone, Copy, Debug)]
struct Str<'a> {
    bytes: &'a [u8],
    ascii: bool,
}

impl Str<'_> {
    const EMPTY: Str<'static> = Str {
        bytes: b"",
        ascii: true,
    };
}

/// Where the first NUL of `b` is, and whether the bytes before it are all ASCII;
/// `None` without a NUL. Strings here are short (names, argument names and values),
/// so eight bytes at a time beat a call to `memchr` and a separate UTF-8 check.
#[inline(always)]
fn nul_ascii(b: &[u8]) -> Option<(usize, bool)> {
    find_nul::<true>(b)
}

/// [`nul_ascii`]; without `ASCII`, the answer's ASCII flag is meaningless. Sixteen
/// bytes at a time (SSE2, which every x86-64 has): one compare finds the NUL of most
/// strings here, where eight bytes at a time took a loop turn per word.
#[inline(always)]
fn find_nul<const ASCII: bool>(b: &[u8]) -> Option<(usize, bool)> {
    let mut high = false;
    let mut at = 0;
    while let Some(block) = b.get(at..at + LANES) {
        let (zero, top) = nul_and_high_bits::<ASCII>(block);
        if zero != 0 {
            let n = zero.trailing_zeros();
            let before = top & ((1u32 << n) - 1);
            return Some((at + n as usize, !high && before == 0));
        }
        high |= top != 0;
        at += LANES;
    }
    let (n, ascii) = find_nul_words::<ASCII>(&b[at..])?;
    Some((at + n, ascii && !high))
}

/// Bytes [`nul_and_high_bits`] reads at once.
const LANES: usize = 16;

/// Of the 16 bytes of `block`: a bit for each NUL, and (with `ASCII`) one for each
/// byte with its high bit set (not ASCII).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn nul_and_high_bits<const ASCII: bool>(block: &[u8]) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
    };
    debug_assert_eq!(block.len(), LANES);
    // SAFETY: `block` holds 16 readable bytes (the callers take them with `get`);
    // the load has no alignment requirement and SSE2 is part of x86-64.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let zero = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u32;
        let top = if ASCII {
            _mm_movemask_epi8(v) as u32
        } else {
            0
        };
        (zero, top)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn nul_and_high_bits<const ASCII: bool>(block: &[u8]) -> (u32, u32) {
    let (mut zero, mut top) = (0, 0);
    for (i, &c) in block.iter().enumerate() {
        zero |= u32::from(c == 0) << i;
        if ASCII {
            top |= u32::from(c >= 0x80) << i;
        }
    }
    (zero, top)
}

/// [`find_nul`] eight bytes at a time, for the last bytes of a packet.
#[inline(always)]
fn find_nul_words<const ASCII: bool>(b: &[u8]) -> Option<(usize, bool)> {
    let mut high = 0u64;
    let mut words = b.chunks_exact(8);
    for (i, w) in words.by_ref().enumerate() {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        // The lowest flagged byte is the first zero byte (a borrow only runs upward
        // from a zero byte); flags above it may be false.
        let zero = w.wrapping_sub(LOW_BITS) & !w & HIGH_BITS;
        if zero != 0 {
            let n = zero.trailing_zeros() as usize / 8;
            if ASCII {
                high |= w & ((1u64 << (8 * n)) - 1);
            }
            return Some((8 * i + n, high & HIGH_BITS == 0));
        }
        if ASCII {
            high |= w;
        }
    }
    let tail = words.remainder();
    let n = memchr::memchr(0, tail)?;
    let ascii = ASCII && high & HIGH_BITS == 0 && tail[..n].is_ascii();
    Some((b.len() - tail.len() + n, ascii))
}

/// The length of the `count` NUL-terminated strings at the start of `b`, NULs
/// included; `None` when `b` holds fewer. Arguments come in runs of short strings
/// (names, values), so one block often ends several of them.
#[inline(always)]
fn strings_len(b: &[u8], mut count: usize) -> Option<usize> {
    let mut at = 0;
    while count > 0 {
        let Some(block) = b.get(at..at + LANES) else {
            let (n, _) = find_nul_words::<false>(&b[at..])?;
            at += n + 1;
            count -= 1;
            continue;
        };
        let (mut zero, _) = nul_and_high_bits::<false>(block);
        // One branch a block rather than one a string: the strings' lengths vary,
        // so a branch per NUL was mispredicted often.
        let nuls = zero.count_ones() as usize;
        if nuls < count {
            count -= nuls;
            at += LANES;
            continue;
        }
        for _ in 1..count {
            zero &= zero - 1;
        }
        return Some(at + zero.trailing_zeros() as usize + 1);
    }
    Some(at)
}

/// As the generic reader: invalid UTF-8 gets U+FFFD replacements.
fn text(s: Str<'_>) -> Cow<'_, str> {
    if s.ascii {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(s.bytes) });
    }
    match simdutf8::basic::from_utf8(s.bytes) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(s.bytes),
    }
}

/// Generic decoding limits sequences by its arena; longer stacks go there.
const MAX_STACK: u32 = 1 << 20;

/// One record's fields as bytes.
struct Record<'a> {
    offset: u64,
    class: Class,
    ts: u64,
    pid: i64,
    tid: i64,
    seq: u64,
    name: Str<'a>,
    id: u64,
    categories: Str<'a>,
    /// Where the arguments' strings are in the data (empty when they were skipped).
    args: std::ops::Range<usize>,
    /// The stack's addresses, packed.
    stack: Option<&'a [u8]>,
}

/// Which arguments [`record`] keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    All,
    /// Those of `End` records only (whether one is dropped depends on them); the
    /// others, the name and the categories are skipped, as the scan needs none.
    OfEnds,
}

/// Reads the next record; its arguments go to `args` (as `keep` says).
fn record<'a>(
    b: &mut Bytes<'a>,
    layout: &FastLayout,
    args: &mut Vec<(Str<'a>, Str<'a>)>,
    keep: Keep,
) -> Option<Record<'a>> {
    let offset = b.pos as u64;
    let class = layout.classes[usize::from(b.take(1)?[0])]?;
    let ts = b.u64()?;
    let pid = b.u64()? as i64;
    let tid = b.u64()? as i64;
    let seq = b.u64()?;
    // The scan needs neither the name nor the categories: it only steps over them,
    // and over the arguments after them in the same pass but for `End` records.
    let keep_args = keep == Keep::All || class.ty == ChromeType::End;
    let (name, id, categories) = match keep {
        Keep::All => (b.string()?, b.u64()?, b.string()?),
        Keep::OfEnds => {
            b.skip_string()?;
            let id = b.u64()?;
            b.skip_strings(1 + if keep_args { 0 } else { 2 * class.args })?;
            (Str::EMPTY, id, Str::EMPTY)
        }
    };
    args.clear();
    let args_start = b.pos;
    if keep_args {
        for _ in 0..class.args {
            let k = b.string()?;
            args.push((k, b.string()?));
        }
    }
    let args_range = args_start..b.pos;
    let stack = match class.stack {
        Some(w) => {
            let n = b.u32()?;
            if n >= MAX_STACK {
                return None;
            }
            Some(b.take(n as usize * w)?)
        }
        None => None,
    };
    Some(Record {
        offset,
        class,
        ts,
        pid,
        tid,
        seq,
        name,
        id,
        categories,
        args: args_range,
        stack,
    })
}

/// Where decoded events go.
pub(crate) trait Sink<'a> {
    /// `None` when the sink cannot take more.
    fn push(&mut self, ev: Event<'a>, seq: u64) -> Option<()>;
}

impl<'a> Sink<'a> for (Vec<Event<'a>>, Vec<u64>) {
    fn push(&mut self, ev: Event<'a>, seq: u64) -> Option<()> {
        self.0.push(ev);
        self.1.push(seq);
        Some(())
    }
}

fn bytes_of(p: Packet, data: &[u8]) -> Bytes<'_> {
    Bytes {
        d: data,
        pos: p.start,
        end: p.end,
    }
}

/// The number of events a packet decodes to (End halves of `X` excluded), when
/// every record reads and whether it is dropped is certain from its bytes (as
/// [`chrome_event`] decides it before parsing anything).
pub(crate) fn count_packet(data: &[u8], p: Packet, layout: &FastLayout) -> Option<usize> {
    scan_packet(data, p, layout, |_, _| {})
}

/// [`count_packet`], also giving `each(seq, offset)` for every record that makes an
/// event (`offset`: where the record starts in `data`).
pub(crate) fn scan_packet(
    data: &[u8],
    p: Packet,
    layout: &FastLayout,
    mut each: impl FnMut(u64, u64),
) -> Option<usize> {
    let mut b = bytes_of(p, data);
    let mut args = Vec::with_capacity(8);
    let mut n = 0;
    while b.pos < b.end {
        let r = record(&mut b, layout, &mut args, Keep::OfEnds)?;
        if r.class.ty == ChromeType::End {
            let more = args.iter().any(|(k, _)| k.bytes == b"@more");
            let ph = args.iter().rev().find(|(k, _)| k.bytes == b"@ph");
            match ph {
                Some((_, v)) if !more && v.bytes == b"\"X\"" => continue,
                None if !more => {}
                _ => return None,
            }
        }
        each(r.seq, r.offset);
        n += 1;
    }
    Some(n)
}

/// Buffers reused from one record to the next.
#[derive(Default)]
pub(crate) struct Scratch<'a> {
    raw: Vec<(Str<'a>, Str<'a>)>,
    stack: Vec<u64>,
}

/// A record's arguments as the bytes of its fields: each is read as text only
/// when the event is built, and written from there into the args text.
struct RawArgs<'s, 'a>(&'s [(Str<'a>, Str<'a>)]);

impl ArgList for RawArgs<'_, '_> {
    #[inline]
    fn each(&self, mut f: impl FnMut(&str, &str)) {
        for &(k, v) in self.0 {
            f(&text(k), &text(v));
        }
    }
}

/// The `args` JSON of a record's `arguments` bytes (see [`EncodedArgs`]): name and
/// value strings in turn, each ended by a NUL; `None` when the event has no args.
/// Bytes that are not whole pairs (a file changed since it was read) give what
/// whole pairs there are.
pub fn args_json(bytes: &[u8]) -> Option<String> {
    let mut raw = Vec::new();
    let mut rest = bytes;
    let mut next = || {
        let n = memchr::memchr(0, rest)?;
        let s = &rest[..n];
        rest = &rest[n + 1..];
        Some(Str {
            bytes: s,
            ascii: s.is_ascii(),
        })
    };
    while let Some(k) = next() {
        let Some(v) = next() else { break };
        raw.push((k, v));
    }
    crate::etw::from_chrome::args_json(&RawArgs(&raw))
}

/// Decodes the record at `b.pos`, giving `emit` its event (none for the dropped End
/// half of an `X`) and its `seq`; `None` when the record does not read. The event
/// (hundreds of bytes) goes to `emit` from where it is built, not moved through
/// returns. With `encoded_from` (where `b`'s data starts among the input's
/// offsets), the event's args are left encoded ([`EncodedArgs`]). With `seq`, a
/// record of another `seq` does not read.
#[inline(always)]
fn next_event<'a>(
    b: &mut Bytes<'a>,
    layout: &FastLayout,
    s: &mut Scratch<'a>,
    encoded_from: Option<u64>,
    seq: Option<u64>,
    emit: impl FnOnce(Event<'a>, u64),
) -> Option<()> {
    let r = record(b, layout, &mut s.raw, Keep::All)?;
    if seq.is_some_and(|seq| seq != r.seq) {
        return None;
    }
    if let Some(st) = r.stack {
        s.stack.clear();
        match r.class.stack {
            Some(4) => s.stack.extend(
                st.chunks_exact(4)
                    .map(|a| u64::from(u32::from_le_bytes(a.try_into().expect("4")))),
            ),
            _ => s.stack.extend(
                st.chunks_exact(8)
                    .map(|a| u64::from_le_bytes(a.try_into().expect("8"))),
            ),
        }
    }
    let (name, categories) = (text(r.name), text(r.categories));
    let fields = ChromeFields {
        ty: r.class.ty,
        name: &name,
        id: r.id,
        categories: &categories,
        args: RawArgs(&s.raw),
        stack: r.stack.map(|_| s.stack.as_slice()),
    };
    let ts = layout.clock.to_ns(r.ts);
    let encoded = encoded_from.map(|base| EncodedArgs {
        bytes: &b.d[r.args.clone()],
        at: base + r.args.start as u64,
    });
    chrome_event(&fields, ts, r.pid, r.tid, r.offset, encoded, |ev| {
        emit(ev, r.seq)
    });
    Some(())
}

/// Gives `each` the event of the record at `offset` of `data`, which [`scan_packet`]
/// read (none for the dropped End half of an `X`); `None` when it does not read,
/// or does not carry `seq` when one is given. With `encoded_from`, its args are
/// left encoded (see [`next_event`]).
#[inline]
pub(crate) fn event_at<'a>(
    data: &'a [u8],
    offset: u64,
    layout: &FastLayout,
    s: &mut Scratch<'a>,
    encoded_from: Option<u64>,
    seq: Option<u64>,
    each: &mut dyn FnMut(Event<'a>),
) -> Option<()> {
    let mut b = Bytes {
        d: data,
        pos: usize::try_from(offset).ok()?,
        end: data.len(),
    };
    next_event(&mut b, layout, s, encoded_from, seq, |ev, _| each(ev))
}

/// Decodes one packet into `sink`: its events (the dropped End halves of `X`
/// excluded; names and categories borrowed from `data`) and their `seq`s; `None`
/// when any event is not exactly as written (for the generic path) or the sink is
/// full.
pub(crate) fn decode_packet<'a, S: Sink<'a>>(
    data: &'a [u8],
    p: Packet,
    layout: &FastLayout,
    sink: &mut S,
) -> Option<()> {
    let mut scratch = Scratch::default();
    let mut b = bytes_of(p, data);
    let mut taken = Some(());
    while b.pos < b.end && taken.is_some() {
        next_event(&mut b, layout, &mut scratch, None, None, |ev, seq| {
            taken = sink.push(ev, seq);
        })?;
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(bits: Bitness) -> String {
        let mut opcodes = [false; 256];
        opcodes[0x10] = true;
        opcodes[0x2a] = true;
        metadata_text(&TraceLayout {
            uuid: [7; 16],
            offset_s: -3,
            bits,
            opcodes: &opcodes,
        })
    }

    /// The word-at-a-time search finds what a byte-by-byte one finds: the first NUL
    /// at every position in a word and past the words, high bytes and NULs after it.
    #[test]
    fn nul_ascii_finds_the_first_nul_and_non_ascii_bytes_before_it() {
        let naive = |b: &[u8]| {
            let n = b.iter().position(|&c| c == 0)?;
            Some((n, b[..n].is_ascii()))
        };
        let fills: [&[u8]; 4] = [
            b"abcdefghijklmnopqrstuvwxyz",
            b"\x01\x80\xff\x7f",
            b"\xc3\xa9t\xc3\xa9",
            b"\x00",
        ];
        for len in 0..40 {
            for fill in fills {
                let base: Vec<u8> = fill.iter().copied().cycle().take(len).collect();
                assert_eq!(nul_ascii(&base), naive(&base), "{base:?}");
                for at in 0..len {
                    for after in [0u8, 1, 0x80, b'x'] {
                        let mut b = base.clone();
                        b[at] = 0;
                        if at + 1 < len {
                            b[at + 1] = after;
                        }
                        assert_eq!(nul_ascii(&b), naive(&b), "{b:?}");
                    }
                }
            }
        }
    }

    /// Skipping several strings at once ends where skipping them one by one ends,
    /// with NULs in runs, across blocks and in a packet's last bytes.
    #[test]
    fn strings_len_ends_after_the_nth_nul() {
        let naive = |b: &[u8], count: usize| {
            let mut at = 0;
            for _ in 0..count {
                at += b.get(at..)?.iter().position(|&c| c == 0)? + 1;
            }
            Some(at)
        };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..80 {
            for round in 0..40 {
                // Random bytes, NULs a quarter or a sixteenth of them.
                let b: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        match state % if round % 2 == 0 { 4 } else { 16 } {
                            0 => 0,
                            _ => (state >> 8) as u8 | 1,
                        }
                    })
                    .collect();
                for count in 0..12 {
                    assert_eq!(strings_len(&b, count), naive(&b, count), "{b:?} {count}");
                }
            }
        }
    }

    /// A record's `arguments` as the writer lays them out: each name and value
    /// followed by a NUL.
    fn encoded(args: &[(Cow<'_, str>, Cow<'_, str>)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, v) in args {
            for s in [k, v] {
                out.extend_from_slice(s.as_bytes());
                out.push(0);
            }
        }
        out
    }

    /// The args of an event of phase `ph` with `args` (JSONC when it holds a
    /// comment) once written as a CTF record: made from the record's encoded
    /// arguments, which must be what the decoding gives. Left encoded, the event
    /// is the decoded one but for its args, and keeps them exactly when the
    /// decoded one has some.
    fn lazy_args(ph: &'static str, args: Option<&str>) -> Option<String> {
        use crate::etw::{from_chrome, to_chrome, MapOptions};
        let ev = Event {
            ph: Some(Cow::Borrowed(ph)),
            name: Some(Cow::Borrowed("n")),
            ts: Some(5),
            pid: Some(crate::Pid::Int(crate::Int64::I(1))),
            tid: Some(crate::Pid::Int(crate::Int64::I(2))),
            args: args.map(|a| crate::RawJson {
                text: Cow::Owned(a.to_string()),
                clean: !a.contains("/*"),
            }),
            ..Event::default()
        };
        let mut records = Vec::new();
        to_chrome(&ev, &MapOptions::ctf(Bitness::B64), &mut records);
        let p = &records[0].payload;
        let bytes = encoded(&p.args);
        let decoded = from_chrome(p.clone(), 5, 1, 2, 0).expect("an event");
        let text = args_json(&bytes);
        assert_eq!(
            text.as_deref(),
            decoded.args.as_ref().map(|a| &*a.text),
            "{args:?}"
        );
        let fields = ChromeFields {
            ty: p.ty,
            name: &p.name,
            id: p.id,
            categories: &p.categories,
            args: p.args.as_slice(),
            stack: p.stack.as_deref(),
        };
        let at = EncodedArgs {
            bytes: &bytes,
            at: 40,
        };
        let mut lazy = None;
        chrome_event(&fields, 5, 1, 2, 0, Some(at), |e| lazy = Some(e));
        let mut lazy = lazy.expect("an event");
        assert_eq!(lazy.encoded_args.is_some(), text.is_some(), "{args:?}");
        assert_eq!(lazy.args_text().map(Cow::into_owned), text);
        assert!(lazy.args.is_none());
        lazy.encoded_args = None;
        lazy.args = decoded.args.clone();
        assert_eq!(lazy, decoded, "{args:?}");
        text
    }

    /// Encoded args give, when asked, exactly the text the decoding writes: each
    /// shape of args the mapping has (members as strings or JSON, `@args` for
    /// empty objects, other values and keys holding NUL, `@more` past 7 members).
    #[test]
    fn encoded_args_give_the_decoded_text() {
        let same = [
            r#"{"a":{"b":[1,2,{"c":null}],"d":"x\ny"},"e":[],"f":{}}"#,
            r#"{"big":1e5,"neg0":-0,"f":-0.0,"huge":99999999999999999999,"t":true,"n":null}"#,
            "{\"q\":\"a\\\"b\\\\c\",\"u\":\"é中😀\",\"nul\":\"x\\u0000y\"}",
            r#"{"k\u0000ey":1,"v":"w"}"#,
            "{}",
            "5",
            r#""s""#,
            r#"[1,{"a":2}]"#,
            "null",
            r#"{"@ph":"x","@args":"y","@more":"z","@=q":"w"}"#,
            r#"{"a1":"1","a2":2,"a3":"3","a4":4,"a5":"5","a6":6,"a7":"7","a8":8,"a9":"nine"}"#,
        ];
        for ph in ["X", "B", "E", "i", "C", "b", "O"] {
            for args in same {
                assert_eq!(lazy_args(ph, Some(args)).as_deref(), Some(args), "{ph}");
            }
            assert_eq!(lazy_args(ph, None), None);
        }
        // Rewritten as the decoding rewrites them: compact, escapes as written.
        let rewritten = [
            (
                r#"{ "a" : 1, /* c */ "b" : [ 1 , 2 ] }"#,
                r#"{"a":1,"b":[1,2]}"#,
            ),
            (r#"{"s":"\u00e9\u000a"}"#, "{\"s\":\"é\\n\"}"),
            ("{\"t\":\"tab\there\"}", r#"{"t":"tab\there"}"#),
            (r#"{"ui\u002dnest":"1"}"#, r#"{"ui-nest":"1"}"#),
        ];
        for (args, text) in rewritten {
            assert_eq!(lazy_args("X", Some(args)).as_deref(), Some(text));
        }
    }

    /// Encoded args that are not whole pairs of strings (a file changed since
    /// it was read) give what whole pairs there are, and bytes that are not UTF-8
    /// their replacement, as the decoding reads them.
    #[test]
    fn cut_or_damaged_encoded_args_give_what_is_there() {
        assert_eq!(args_json(b""), None);
        assert_eq!(args_json(b"k"), None);
        assert_eq!(args_json(b"k\0v"), None);
        assert_eq!(args_json(b"k\0v\0x").as_deref(), Some(r#"{"k":"v"}"#));
        assert_eq!(args_json(b"k\0v\0x\0").as_deref(), Some(r#"{"k":"v"}"#));
        assert_eq!(
            args_json(b"k\0\xff\0").as_deref(),
            Some("{\"k\":\"\u{fffd}\"}")
        );
        assert_eq!(
            args_json(b"@args\0{\0").as_deref(),
            Some(r#"{"@args":"{"}"#)
        );
        assert_eq!(
            args_json(b"@dur\0\"5\"\0").as_deref(),
            Some(r#"{"@dur":"\"5\""}"#)
        );
        assert_eq!(args_json(b"@dur\0\x35\0"), None);
    }

    #[test]
    fn detects_only_our_exact_layout() {
        for bits in [Bitness::B32, Bitness::B64] {
            let meta = parse_metadata(&ours(bits)).unwrap();
            let l = detect(&meta).expect("our own layout");
            let c = l.classes[0x2a].unwrap();
            assert_eq!(
                (c.ty, c.args, c.stack),
                (ChromeType::Instant, 2, Some(bits.bytes()))
            );
            assert_eq!(l.clock.offset_s, -3);
            assert!(l.classes[0x11].is_none());
        }
        let deviations = [
            ("string name;", "string _name;"),
            ("uint64 seq;", "uint32 seq;"),
            ("byte_order = le;", "byte_order = be;"),
            ("uint8 id;\n", "uint32 id;\n"),
        ];
        for (from, to) in deviations {
            let text = ours(Bitness::B64).replacen(from, to, 1);
            assert_ne!(text, ours(Bitness::B64), "{from}");
            let meta = parse_metadata(&text).unwrap();
            assert!(detect(&meta).is_none(), "{to}");
        }
    }
}
