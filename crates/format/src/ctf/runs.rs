//! A trace in tracescope's own layout as [`EventRuns`]: where each event's record
//! starts (8 bytes an event: its packet and its offset in the packet), in `seq`
//! order as [`super::order`] orders decoded events, comes from the record index the
//! writer left beside the streams ([`super::index`]) or else from one parallel pass
//! over the packets that notes each record's `seq`; each run then decodes its
//! records straight from the files, checking that each carries the `seq` of its
//! place.
//! The decoded events are never all held at once, which matters when they are
//! hundreds of bytes each and the trace has millions. With
//! [`CtfRuns::with_encoded_args`], the events' args are not written as JSON either:
//! each event points at its record's arguments in the stream files, which the
//! consumer keeps ([`CtfRuns::files`]) and reads again when it wants the text.
//!
//! A mapped stream file does not stay in memory either: the scan reads each packet
//! into a buffer of its own (`pread`) rather than through the mapping, and the runs
//! drop the pages of each packet once
//! its last record is decoded (a few at a time: each drop interrupts the other core
//! to flush its TLB). So the memory of a load is the model's, plus the packets with
//! records still to decode, as for JSON whose parts release their text once parsed.

use std::fs::File;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::fast::{detect, event_at, scan_packet, split_packets_by, FastLayout, Packet, Scratch};
use super::files::StreamFile;
use super::index::{RecordIndex, INDEX_FILE, OFFSET_BITS};
use super::metadata::metadata_text;
use super::tsdl::parse_metadata;
use super::writer::PACKET_PREAMBLE;
use crate::{DiagKind, Diagnostics, Event, EventRuns};

/// Events per run below which splitting does not pay.
const MIN_RUN: usize = 1 << 14;
/// A packet's records as the scan notes them: `(seq, record)` (see [`CtfRuns::records`]).
type Noted = Vec<(u64, u64)>;

/// Packets a task of the scan reads in turn (8 MiB of our 256 KiB packets).
const SCAN_BATCH: usize = 32;

/// Bytes of packets a run has finished with that it gathers before dropping their
/// pages at once.
const DROP_BATCH: usize = 2 << 20;
/// How far around a finished packet a drop also drops the pages of finished
/// packets: a fault maps cached neighbours along (up to a large folio, 2 MiB), and
/// those of finished packets would otherwise stay mapped until the end.
const NEIGHBOURS: usize = 2 << 20;

/// The events of one trace, in input order, decoded run by run.
pub struct CtfRuns<'a> {
    streams: Vec<Stream<'a>>,
    /// Every packet of every stream, the packets of each stream in turn.
    packets: Vec<PacketAt>,
    layout: FastLayout,
    /// Every event, in input order, as `packet << offset_bits | offset`: `packet`
    /// numbers [`CtfRuns::packets`], `offset` is where its record starts in the
    /// packet (never 0: the packet's header comes first). 8 bytes a record (a 1 GB
    /// trace has 4 M), one vector per run, which the run takes and drops once done.
    records: Vec<Mutex<Vec<u64>>>,
    len: usize,
    offset_bits: u32,
    /// Runs finished: the last one drops all the pages left.
    finished: AtomicUsize,
    /// The stream files, shared, for whoever reads encoded args after the runs.
    files: Vec<StreamFile>,
    /// With [`CtfRuns::with_encoded_args`]: where each stream starts among the
    /// input's offsets (the streams one after another, the first at 0).
    encoded_from: Option<Vec<u64>>,
    /// What each record's `seq` is, which the runs check.
    seqs: Seqs,
}

/// A stream file's bytes, and the file when they are a mapping of it (whose pages
/// can be dropped, and which a pass over every byte reads without the mapping).
struct Stream<'a> {
    data: &'a [u8],
    file: Option<&'a File>,
}

impl Stream<'_> {
    fn mapped(&self) -> bool {
        self.file.is_some()
    }
}

/// A packet of a stream: its bytes `pos..next` and how many of its records no run
/// decoded yet (0: finished, its pages may be dropped).
struct PacketAt {
    stream: usize,
    pos: usize,
    next: usize,
    left: AtomicU32,
}

impl CtfRuns<'_> {
    /// The number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The stream files the events are read from, in order: the space of input
    /// offsets of [`crate::EncodedArgs::at`] has each after the previous one.
    pub fn files(&self) -> &[StreamFile] {
        &self.files
    }

    /// The runs give each event's args left encoded in the stream files
    /// ([`Event::encoded_args`], `args` then `None`) rather than as JSON text:
    /// for a consumer that keeps [`CtfRuns::files`] and makes the text when asked.
    pub fn with_encoded_args(mut self) -> Self {
        let mut at = 0u64;
        let bases = (self.streams.iter())
            .map(|s| {
                let base = at;
                at += s.data.len() as u64;
                base
            })
            .collect();
        self.encoded_from = Some(bases);
        self
    }

    /// The runs with the shared stream files they read (see [`CtfRuns::files`]).
    pub(crate) fn of_files(mut self, files: Vec<StreamFile>) -> Self {
        self.files = files;
        self
    }

    /// The same events in `runs` runs (at least one): any split gives the same
    /// events in the same order. Each run is decoded once.
    pub fn split(mut self, runs: usize) -> Self {
        let all: Vec<u64> = (self.records.drain(..))
            .flat_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        self.records = in_runs(all, runs.max(1))
            .into_iter()
            .map(Mutex::new)
            .collect();
        self
    }

    /// The packet and the stream offset of a record.
    #[inline(always)]
    fn locate(&self, record: u64) -> (usize, usize) {
        let k = (record >> self.offset_bits) as usize;
        let offset = (record & ((1 << self.offset_bits) - 1)) as usize;
        (k, self.packets[k].pos + offset)
    }

    /// Notes that a run decoded `n` records of packet `k` (none: `k` is `usize::MAX`),
    /// of which `mine` counts the records the run has left. If they were the
    /// packet's last, it goes to `done`, whose pages are dropped once it holds
    /// [`DROP_BATCH`] bytes; if only the run's last, to `done.open`.
    fn decoded(&self, k: usize, n: u32, mine: &mut [u32], done: &mut Finished) {
        let Some(p) = self.packets.get(k) else {
            return;
        };
        mine[k] -= n;
        let last = p.left.fetch_sub(n, Ordering::AcqRel) == n;
        if !self.streams[p.stream].mapped() || !last && mine[k] > 0 {
            return;
        }
        if last {
            done.packets.push(k);
        } else {
            done.open.push(k);
        }
        done.bytes += p.next - p.pos;
        if done.bytes >= DROP_BATCH {
            self.drop_finished(done);
            self.drop_left_open(done);
        }
    }

    /// Drops the pages of the packets a run is done with that have records of
    /// other runs still to decode (`done.open`): the run that decodes them may come
    /// much later (the last run of the other core), and faulting them in again then
    /// costs less than holding them meanwhile (the packets two runs share were a
    /// quarter of a 1 GB trace's mapped pages during the runs).
    fn drop_left_open(&self, done: &mut Finished) {
        done.open.sort_unstable();
        let mut range: Option<(usize, usize, usize)> = None;
        for &k in &done.open {
            let p = &self.packets[k];
            match &mut range {
                Some((s, _, e)) if *s == p.stream && *e == p.pos => *e = p.next,
                _ => {
                    if let Some((s, a, b)) = range.replace((p.stream, p.pos, p.next)) {
                        release(self.streams[s].data, a..b);
                    }
                }
            }
        }
        if let Some((s, a, b)) = range {
            release(self.streams[s].data, a..b);
        }
        done.open.clear();
    }

    /// Drops the pages of the packets of `done`, and of the finished packets up to
    /// [`NEIGHBOURS`] bytes around them, in as few calls as ranges.
    fn drop_finished(&self, done: &mut Finished) {
        done.packets.sort_unstable();
        let finished = |k: usize| self.packets[k].left.load(Ordering::Acquire) == 0;
        let mut range: Option<(usize, usize, usize)> = None;
        for &k in &done.packets {
            let p = &self.packets[k];
            let near = |q: &PacketAt| {
                q.stream == p.stream && q.next + NEIGHBOURS > p.pos && q.pos < p.next + NEIGHBOURS
            };
            let mut lo = k;
            while lo > 0 && near(&self.packets[lo - 1]) && finished(lo - 1) {
                lo -= 1;
            }
            let mut hi = k;
            while hi + 1 < self.packets.len() && near(&self.packets[hi + 1]) && finished(hi + 1) {
                hi += 1;
            }
            let (start, end) = (self.packets[lo].pos, self.packets[hi].next);
            match &mut range {
                Some((s, _, e)) if *s == p.stream && *e >= start => *e = (*e).max(end),
                _ => {
                    if let Some((s, a, b)) = range.replace((p.stream, start, end)) {
                        release(self.streams[s].data, a..b);
                    }
                }
            }
        }
        if let Some((s, a, b)) = range {
            release(self.streams[s].data, a..b);
        }
        done.packets.clear();
        done.bytes = 0;
    }
}

/// The packets a run finished with whose pages it has not dropped yet.
#[derive(Default)]
struct Finished {
    packets: Vec<usize>,
    bytes: usize,
    /// Packets the run has no more records of, whose other records other runs
    /// decode.
    open: Vec<usize>,
}

/// The runs of a trace (its metadata and stream files' bytes, each with its file
/// when the bytes are a mapping of it, whose pages may be dropped once read) when it
/// is in our own layout and the fast path reads every packet of every stream;
/// `None` otherwise, for the general decoder (and its diagnostics).
pub(crate) fn fast_runs<'a>(
    metadata: &[u8],
    files: &[(&'a [u8], Option<&'a File>)],
    index: Option<RecordIndex>,
) -> Option<CtfRuns<'a>> {
    let meta = parse_metadata(&metadata_text(metadata).ok()?).ok()?;
    let layout = detect(&meta)?;
    let mut per_stream = Vec::with_capacity(files.len());
    let mut preambles = Vec::new();
    for &(data, file) in files {
        let (packets, rest) = packets_of(data, file, &mut preambles);
        if rest.is_some() {
            return None;
        }
        per_stream.push(packets);
    }
    // A record is its packet's number and its offset in the packet, in 64 bits.
    let total: usize = per_stream.iter().map(Vec::len).sum();
    let longest = (per_stream.iter().flatten())
        .map(|p| p.next - p.pos as usize)
        .max()
        .unwrap_or(1);
    let offset_bits = usize::BITS - longest.leading_zeros();
    if offset_bits >= 64 || total as u128 > 1u128 << (64 - offset_bits) {
        return None;
    }
    let mut packets = Vec::with_capacity(total);
    let mut streams = Vec::with_capacity(files.len());
    for (k, (&(data, file), stream_packets)) in files.iter().zip(&per_stream).enumerate() {
        packets.extend(stream_packets.iter().map(|p| PacketAt {
            stream: k,
            pos: p.pos as usize,
            next: p.next,
            left: AtomicU32::new(0),
        }));
        streams.push(Stream { data, file });
    }
    let lengths: Vec<usize> = files.iter().map(|f| f.0.len()).collect();
    let runs_of = |n: usize| (n / MIN_RUN).clamp(1, 4 * rayon::current_num_threads());
    let indexed =
        (index.filter(|ix| ix.describes(&lengths, &per_stream, &preambles))).and_then(|ix| {
            ix.runs(runs_of(ix.len()), |run| {
                recode(run, &per_stream, offset_bits)
            })
        });
    let (records, seqs) = match indexed {
        Some(runs) => (runs, Seqs::Indexed),
        None => {
            let (all, seqs) = scanned_records(&streams, &per_stream, &layout, offset_bits)?;
            let runs = runs_of(all.len());
            (in_runs(all, runs), seqs)
        }
    };
    // Per packet, the records of every run in it.
    let mut left = vec![0u32; total];
    for r in records.iter().flatten() {
        let k = (r >> offset_bits) as usize;
        left[k] = left[k].checked_add(1)?;
    }
    for (p, n) in packets.iter_mut().zip(left) {
        p.left = AtomicU32::new(n);
    }
    Some(CtfRuns {
        streams,
        packets,
        layout,
        len: records.iter().map(Vec::len).sum(),
        records: records.into_iter().map(Mutex::new).collect(),
        offset_bits,
        finished: AtomicUsize::new(0),
        files: Vec::new(),
        encoded_from: None,
        seqs,
    })
}

/// Recodes records of the index (see [`super::index`]) in place with `offset_bits`
/// bits of offset; `None` unless each is inside the content of a packet of
/// `per_stream`.
fn recode(run: &mut [u64], per_stream: &[Vec<Packet>], offset_bits: u32) -> Option<()> {
    let packets: Vec<&Packet> = per_stream.iter().flatten().collect();
    let low = (1u64 << OFFSET_BITS) - 1;
    for r in run {
        let (k, offset) = (*r >> OFFSET_BITS, *r & low);
        let p = packets.get(usize::try_from(k).ok()?)?;
        let inside = offset >= (p.start as u64 - p.pos) && offset < (p.end as u64 - p.pos);
        if !inside {
            return None;
        }
        *r = k << offset_bits | offset;
    }
    Some(())
}

/// Every record of the streams, in `seq` order, as a scan of every byte finds
/// them, and what their `seq`s are.
fn scanned_records(
    streams: &[Stream<'_>],
    per_stream: &[Vec<Packet>],
    layout: &FastLayout,
    offset_bits: u32,
) -> Option<(Vec<u64>, Seqs)> {
    // Each record goes straight to its place as the scan finds it: the writer
    // numbers the events 0, 1, 2... in input order. The slots are as many as the
    // packets could hold records (untouched slots are never mapped), 0 where no
    // record went.
    let content: usize = per_stream.iter().flatten().map(|p| p.end - p.start).sum();
    let mut slots = vec![0u64; content / MIN_RECORD + 1];
    let placed = atomics(&mut slots);
    let direct = scan(streams, per_stream, offset_bits, |packet, number| {
        let (mut n, mut most, mut ok) = (0usize, 0u64, true);
        scan_packet(packet.0, packet.1, layout, |seq, at| {
            let record = number | (at - packet.1.pos);
            // Not a swap (a locked instruction per record): two records of the same
            // `seq` on two threads may both find the slot free, but then a slot
            // below `n` stays empty, which the check after the scan finds.
            match usize::try_from(seq).ok().and_then(|i| placed.get(i)) {
                Some(slot) if slot.load(Ordering::Relaxed) == 0 => {
                    slot.store(record, Ordering::Relaxed)
                }
                _ => ok = false,
            }
            (n, most) = (n + 1, most.max(seq));
        })?;
        Some((n, most, ok))
    })?;
    let n: usize = direct.iter().map(|d| d.0).sum();
    // `n` records whose seqs are below `n` and that fill every slot below `n` have
    // distinct seqs: each went to its own slot.
    let filled = |slots: &[u64]| slots.par_chunks(1 << 16).all(|c| !c.contains(&0));
    let direct = direct.iter().all(|d| d.2 && d.1 < n as u64);
    if direct && slots.get(..n).is_some_and(filled) {
        slots.truncate(n);
        return Some((slots, Seqs::Placed));
    }
    // Any other numbering (repeated or missing `seq`s): scanned again, sorted.
    drop(slots);
    let scanned = scan(streams, per_stream, offset_bits, |packet, number| {
        let mut v: Noted = Vec::new();
        scan_packet(packet.0, packet.1, layout, |seq, at| {
            v.push((seq, number | (at - packet.1.pos)))
        })?;
        Some(v)
    })?;
    Some((in_seq_order(scanned), Seqs::Sorted))
}

/// What the `seq` of each record is, as the runs decode them in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seqs {
    /// Its place in the input, as the record index ([`super::index`]) says.
    Indexed,
    /// Its place in the input, as the scan found it.
    Placed,
    /// Any: the scan sorted the records by `seq`, repeats and gaps allowed.
    Sorted,
}

/// The fewest bytes a record takes: its opcode, time, pid, tid, `seq` and id, and
/// the NULs of an empty name and empty categories.
const MIN_RECORD: usize = 1 + 5 * 8 + 2;

/// `slots` as atomics, which threads may write at once.
fn atomics(slots: &mut [u64]) -> &[AtomicU64] {
    const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());
    // SAFETY: `AtomicU64` has the size and bit validity of `u64` (documented) and,
    // as asserted above, its alignment here; the exclusive borrow of `slots` is held
    // as long as the atomics are, so nothing reads them as plain `u64`s meanwhile.
    unsafe { std::slice::from_raw_parts(slots.as_ptr().cast::<AtomicU64>(), slots.len()) }
}

/// Scans every packet of every stream, in parallel, a batch of packets at a time:
/// `each((data, packet), number)` (`number`: the packet's number, shifted to its
/// place in a record) for every packet, its answers in packet order; `None` when a
/// packet does not read. A mapped stream's packets are read into a buffer of the
/// task's (`pread`), not through the mapping: faulting its pages in and dropping
/// them again (each drop interrupting the other core to flush its TLB) took more
/// time than the copy, and the scan reads each byte once.
fn scan<T: Send>(
    streams: &[Stream<'_>],
    per_stream: &[Vec<Packet>],
    offset_bits: u32,
    each: impl Fn((&[u8], Packet), u64) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(per_stream.iter().map(Vec::len).sum());
    for (s, stream_packets) in streams.iter().zip(per_stream) {
        let first = out.len();
        let batches: Option<Vec<Vec<T>>> = stream_packets
            .par_chunks(SCAN_BATCH)
            .enumerate()
            .map(|(b, batch)| {
                let mut answers = Vec::with_capacity(batch.len());
                let mut buf = Vec::new();
                for (i, &p) in batch.iter().enumerate() {
                    let number = ((first + b * SCAN_BATCH + i) as u64) << offset_bits;
                    let answer = match s.file {
                        Some(file) => each(read_packet(file, p, &mut buf)?, number),
                        None => each((s.data, p), number),
                    };
                    answers.push(answer?);
                }
                Some(answers)
            })
            .collect();
        out.extend(batches?.into_iter().flatten());
    }
    Some(out)
}

/// The content of packet `p` of `file`, read into `buf`, and the packet as placed
/// there (its offsets relative to `buf`).
fn read_packet<'b>(file: &File, p: Packet, buf: &'b mut Vec<u8>) -> Option<(&'b [u8], Packet)> {
    let len = p.end - p.pos as usize;
    if buf.len() < len {
        buf.resize(len, 0);
    }
    read_at(file, &mut buf[..len], p.pos).then_some(())?;
    let base = p.pos as usize;
    let placed = Packet {
        pos: 0,
        start: p.start - base,
        end: p.end - base,
        next: p.next - base,
    };
    Some((&buf[..len], placed))
}

/// Fills `buf` from `file` at byte `pos`; `false` when it cannot.
#[cfg(unix)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], pos: u64) -> bool {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, pos).is_ok()
}

/// Off unix nothing is read this way: only mapped streams have a file here
/// ([`super::files::FileBytes::mapped_file`]), and none do there; and a record
/// index that cannot be read is not followed.
#[cfg(not(unix))]
pub(crate) fn read_at(_: &File, _: &mut [u8], _: u64) -> bool {
    false
}

/// `records` cut into `runs` consecutive runs, each a vector of its own (so each
/// run's memory goes when it is done; `records`, written whole by the scan, goes
/// here).
fn in_runs(records: Vec<u64>, runs: usize) -> Vec<Vec<u64>> {
    let n = records.len();
    (0..runs)
        .map(|k| records[k * n / runs..(k + 1) * n / runs].to_vec())
        .collect()
}

/// The scanned `(seq, record)` of every record, per packet, as the records in `seq`
/// order. The writer numbers the events 0, 1, 2... in input order, so each record
/// usually goes straight to its place (no sort of millions of pairs); any other
/// numbering (repeated or missing `seq`s) is sorted, stably, as decoded events are
/// put in order. No record is `u64::MAX` (its offset is below its packet's length,
/// which fits the offset bits).
fn in_seq_order(scanned: Vec<Vec<(u64, u64)>>) -> Vec<u64> {
    let n: usize = scanned.iter().map(Vec::len).sum();
    const FREE: u64 = u64::MAX;
    let mut placed = vec![FREE; n];
    let mut direct = true;
    'place: for v in &scanned {
        for &(seq, record) in v {
            match usize::try_from(seq).ok().and_then(|i| placed.get_mut(i)) {
                Some(slot) if *slot == FREE => *slot = record,
                _ => {
                    direct = false;
                    break 'place;
                }
            }
        }
    }
    // `n` distinct seqs below `n` fill every slot.
    if direct {
        return placed;
    }
    drop(placed);
    let mut records: Vec<(u64, u64)> = scanned.into_iter().flatten().collect();
    records.sort_by_key(|r| r.0);
    records.into_iter().map(|(_, record)| record).collect()
}

/// How many records ahead of the one being decoded a run asks for the memory of.
/// Input order jumps about the file (written in time order), so without this each
/// record is a cache miss the decoder waits for.
const PREFETCH_AHEAD: usize = 16;
/// Bytes from a record's start asked for ahead: most records are shorter.
const PREFETCH_BYTES: usize = 192;

impl CtfRuns<'_> {
    /// Asks the CPU to load the start of `record` into the cache.
    fn prefetch(&self, record: u64) {
        let (k, offset) = self.locate(record);
        let data = self.streams[self.packets[k].stream].data;
        let start = offset.min(data.len());
        let end = (start + PREFETCH_BYTES).min(data.len());
        for line in data[start..end].chunks(64) {
            prefetch_line(line.as_ptr());
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn prefetch_line(p: *const u8) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: a prefetch is a hint that never faults, whatever the address.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
}

#[cfg(not(target_arch = "x86_64"))]
fn prefetch_line(_: *const u8) {}

impl<'a> EventRuns<'a> for CtfRuns<'a> {
    fn runs(&self) -> usize {
        self.records.len()
    }

    fn run(&self, k: usize, diags: &mut Diagnostics, each: &mut dyn FnMut(Event<'a>)) {
        // Taken: the run's records are dropped once decoded.
        let records = match self.records.get(k) {
            Some(m) => std::mem::take(&mut *m.lock().unwrap_or_else(|e| e.into_inner())),
            None => Vec::new(),
        };
        let mut scratch = Scratch::default();
        let mut done = Finished::default();
        // Per packet, the run's records in it not decoded yet.
        let mut mine = vec![0u32; self.packets.len()];
        for &record in &records {
            mine[self.locate(record).0] += 1;
        }
        // The place in the input of the run's first record (see `in_runs`).
        let first = (k * self.len).checked_div(self.records.len()).unwrap_or(0);
        // The packet of the records being decoded, and how many of them were.
        let (mut current, mut taken) = (usize::MAX, 0);
        for (i, &record) in records.iter().enumerate() {
            if let Some(&ahead) = records.get(i + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            let (packet, offset) = self.locate(record);
            if packet != current {
                self.decoded(current, taken, &mut mine, &mut done);
                (current, taken) = (packet, 0);
            }
            taken += 1;
            // The scan read this record already; only a file changed underneath the
            // map fails here.
            let stream = self.packets[packet].stream;
            let data = self.streams[stream].data;
            let from = self.encoded_from.as_ref().map(|b| b[stream]);
            let seq = (self.seqs != Seqs::Sorted).then_some((first + i) as u64);
            if event_at(
                data,
                offset as u64,
                &self.layout,
                &mut scratch,
                from,
                seq,
                each,
            )
            .is_none()
            {
                diags.add(DiagKind::SyntaxError, offset as u64, || match self.seqs {
                    Seqs::Indexed => format!(
                        "record at byte {offset} is not event {} as {INDEX_FILE} says: \
                         the stream changed after the index was written \
                         (delete the index to have the stream scanned)",
                        first + i
                    ),
                    _ => format!("record at byte {offset} changed since it was first read"),
                });
            }
        }
        self.decoded(current, taken, &mut mine, &mut done);
        self.drop_finished(&mut done);
        self.drop_left_open(&mut done);
        if self.finished.fetch_add(1, Ordering::AcqRel) + 1 == self.records.len() {
            for s in self.streams.iter().filter(|s| s.mapped()) {
                release(s.data, 0..s.data.len());
            }
        }
    }
}

/// The packets of a stream file ([`super::fast::split_packets`]), each one's
/// preamble added to `preambles` (and that of a packet found bad, after which the
/// walk stops). A mapped file's packet headers are read from the file (`pread`),
/// not through the mapping: a fault maps
/// far more than the header (the cached pages around it, a whole large folio where
/// the page cache holds the file in them), so walking the headers of a 1.2 GB
/// stream through the mapping mapped nearly all of it within 50 ms.
fn packets_of(
    data: &[u8],
    file: Option<&File>,
    preambles: &mut Vec<u8>,
) -> (Vec<Packet>, Option<u64>) {
    let mut preamble = |pos: usize, head: &mut [u8; PACKET_PREAMBLE]| {
        let read = match file {
            Some(file) => read_at(file, head, pos as u64),
            None => {
                head.copy_from_slice(&data[pos..pos + PACKET_PREAMBLE]);
                true
            }
        };
        preambles.extend_from_slice(head);
        read
    };
    split_packets_by(data.len(), &mut preamble, |_| {})
}

/// Drops the mapped pages wholly inside `range` of `data` from the page tables.
#[cfg(unix)]
pub(crate) fn release(data: &[u8], range: std::ops::Range<usize>) {
    const PAGE: usize = 4096;
    let base = data.as_ptr() as usize;
    let start = (base + range.start).next_multiple_of(PAGE);
    let end = (base + range.end.min(data.len())) / PAGE * PAGE;
    if start < end {
        // SAFETY: `data` is a read-only, never-written private file mapping (the
        // caller says so), so MADV_DONTNEED only drops page-table entries: the
        // addresses stay valid and later reads see the same file bytes again.
        // Failure only means the memory is not returned early.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
    }
}

#[cfg(not(unix))]
pub(crate) fn release(_: &[u8], _: std::ops::Range<usize>) {}

#[cfg(test)]
mod tests {
    use super::{in_seq_order, packets_of, release, Seqs};
    use crate::ctf::fast::{split_packets, Packet};
    use crate::ctf::metadata::metadata_text;
    use crate::ctf::tsdl::parse_metadata;
    use crate::ctf::writer::{CTF_MAGIC, PACKET_PREAMBLE};

    /// The resident size (smaps `Rss`, KiB) of the mapping that starts at `base`.
    #[cfg(target_os = "linux")]
    fn mapping_rss_kib(base: usize) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut lines = smaps.lines().skip_while(|l| {
            let start = l.split('-').next().unwrap_or("");
            usize::from_str_radix(start, 16).ok() != Some(base)
        });
        lines.next().expect("the mapping is listed");
        let rss = lines.find(|l| l.starts_with("Rss:")).expect("an Rss line");
        rss.split_whitespace()
            .nth(1)
            .and_then(|k| k.parse().ok())
            .expect("KiB")
    }

    /// Walking the packet headers of a mapped stream reads them from the file and
    /// maps none of it (through the mapping, a 1.2 GB stream was nearly all resident
    /// within 50 ms, before any record was read), finding the packets the walk of
    /// the bytes finds.
    #[cfg(target_os = "linux")]
    #[test]
    fn walking_the_headers_of_a_mapped_stream_maps_none_of_it() {
        const PACKET: usize = 64 << 10;
        const PACKETS: usize = 256;
        let mut bytes = vec![0u8; PACKET * PACKETS];
        for p in bytes.chunks_mut(PACKET) {
            p[..4].copy_from_slice(&CTF_MAGIC.to_le_bytes());
            p[40..48].copy_from_slice(&(PACKET_PREAMBLE as u64 * 8).to_le_bytes());
            p[48..56].copy_from_slice(&(PACKET as u64 * 8).to_le_bytes());
        }
        let path = std::env::temp_dir().join(format!("tracescope-packets-{}", std::process::id()));
        std::fs::write(&path, &bytes).expect("write the stream");
        let file = std::fs::File::open(&path).expect("open the stream");
        // SAFETY: the test's own file, not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }.expect("map the stream");
        let _ = std::fs::remove_file(&path);
        let base = map.as_ptr() as usize;

        // The walk of the bytes maps pages (at least each header's)...
        let (walked, rest) = split_packets(&map);
        assert_eq!((walked.len(), rest), (PACKETS, None));
        assert!(mapping_rss_kib(base) >= 4, "the headers were read");
        // ...the walk of the file none, and finds the same packets.
        release(&map, 0..map.len());
        let mut preambles = Vec::new();
        let (packets, rest) = packets_of(&map, Some(&file), &mut preambles);
        assert_eq!(mapping_rss_kib(base), 0);
        assert_eq!((packets.len(), rest), (PACKETS, None));
        let read: Vec<&[u8]> = preambles.chunks(PACKET_PREAMBLE).collect();
        let mapped = packets.iter().map(|p| &map[p.pos as usize..p.start]);
        assert!(mapped.eq(read), "each packet's preamble, in turn");
        let key = |p: &Packet| (p.pos, p.start, p.end, p.next);
        assert!(packets.iter().map(key).eq(walked.iter().map(key)));
        assert_eq!(packets[1].pos as usize, PACKET);
        // A stream cut short, or with a bad header: the walk of the file stops where
        // the walk of the bytes stops (the general reader takes over there).
        let mut bad = bytes.clone();
        bad[5 * PACKET] ^= 1;
        for damaged in [&bytes[..bytes.len() - PACKET / 2], &bad[..]] {
            std::fs::write(&path, damaged).expect("write the stream");
            let file = std::fs::File::open(&path).expect("open the stream");
            let _ = std::fs::remove_file(&path);
            let (packets, rest) = packets_of(damaged, Some(&file), &mut Vec::new());
            let (walked, walked_rest) = split_packets(damaged);
            assert!(walked_rest.is_some());
            assert_eq!(rest, walked_rest);
            assert!(packets.iter().map(key).eq(walked.iter().map(key)));
        }
    }

    /// Placing by `seq` gives what a stable sort gives, and numberings it cannot
    /// place (repeats, gaps, a `seq` past the count) are sorted stably.
    #[test]
    fn records_in_seq_order_placed_or_sorted() {
        // A stable sort by seq, each record named by its packet's index.
        let sorted = |s: &[Vec<(u64, u64)>]| {
            let mut all: Vec<(u64, u64)> = s.iter().flatten().copied().collect();
            all.sort_by_key(|r| r.0);
            all.into_iter().map(|(_, at)| at).collect::<Vec<_>>()
        };
        let cases: Vec<Vec<Vec<(u64, u64)>>> = vec![
            vec![],
            vec![vec![(2, 20), (0, 0)], vec![], vec![(3, 30), (1, 10)]],
            vec![vec![(0, 5)], vec![(1, 6), (2, 7)]],
            // A repeated seq: its records keep their scan order.
            vec![vec![(1, 10), (0, 0)], vec![(1, 11), (2, 20)]],
            // A gap, and a seq past the count.
            vec![vec![(4, 40), (0, 0)], vec![(2, 20)]],
            vec![vec![(u64::MAX, 1), (0, 0)]],
        ];
        for c in cases {
            assert_eq!(in_seq_order(c.clone()), sorted(&c), "{c:?}");
        }
        assert_eq!(
            in_seq_order(vec![vec![(1, 10), (0, 0)], vec![(1, 11), (2, 20)]]),
            vec![0, 10, 11, 20]
        );
        assert_eq!(
            in_seq_order(vec![vec![(2, 20), (0, 0)], vec![], vec![(3, 30), (1, 10)]]),
            vec![0, 10, 20, 30]
        );
    }

    /// Records whose `seq`s repeat, skip numbers or run past the count (a file not
    /// written by us) come in the order the decoded events are put in (a stable
    /// sort by `seq`), whatever the split; our own numbering is placed directly.
    #[test]
    fn runs_of_any_numbering_give_the_decoded_order() {
        use crate::ctf::fast::{detect, scan_packet, split_packets};
        use crate::ctf::{open_dir, write_dir, CtfWriteOptions};
        use crate::EventRuns;
        use std::borrow::Cow;

        let events: Vec<crate::Event<'static>> = (0..3000i64)
            .map(|i| crate::Event {
                ph: Some(Cow::Borrowed(if i % 3 == 0 { "X" } else { "i" })),
                name: Some(Cow::Owned(format!("e{i}"))),
                // Times out of input order, so the stream's order is not `seq`'s.
                ts: Some((i * 7919) % 3001 * 1000),
                dur: (i % 3 == 0).then_some(500),
                pid: Some(crate::Pid::Int(crate::Int64::I(1))),
                tid: Some(crate::Pid::Int(crate::Int64::I(i % 4))),
                ..Default::default()
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("tracescope-seqs-{}", std::process::id()));
        let opts = CtfWriteOptions {
            packet_bytes: 4 << 10,
            ..Default::default()
        };
        write_dir(&dir, &events, &opts).expect("write");
        let stream = dir.join("chrome_0");
        let clean = std::fs::read(&stream).expect("stream");
        let meta = std::fs::read(dir.join("metadata")).expect("metadata");
        let meta = parse_metadata(&metadata_text(&meta).expect("text")).expect("metadata");
        let layout = detect(&meta).expect("our layout");
        // Where each event record's `seq` is (after its opcode, time, pid and tid).
        let mut seqs = Vec::new();
        for p in split_packets(&clean).0 {
            scan_packet(&clean, p, &layout, |seq, at| {
                seqs.push((seq, at as usize + 25))
            });
        }
        assert_eq!(seqs.len(), events.len());
        let set = |bytes: &mut [u8], at: usize, seq: u64| {
            bytes[at..at + 8].copy_from_slice(&seq.to_le_bytes());
        };
        let renumber: [&dyn Fn(u64) -> u64; 4] = [
            &|s| s,
            &|s| s / 2,                   // every seq twice
            &|s| s * 3 + 1,               // gaps, past the count
            &|s| (s % 7 == 0) as u64 * s, // many zeros
        ];
        // A file of another writer: no index says where its records are.
        std::fs::remove_file(dir.join(crate::ctf::INDEX_FILE)).expect("an index was written");
        for (case, f) in renumber.iter().enumerate() {
            let mut bytes = clean.clone();
            for &(seq, at) in &seqs {
                set(&mut bytes, at, f(seq));
            }
            std::fs::write(&stream, &bytes).expect("rewrite");
            let files = open_dir(&dir).expect("open");
            let (want, diags) = files.events().expect("decoded");
            assert!(diags.is_empty(), "{diags:?}");
            for split in [1, 3, 8] {
                let runs = files.runs().expect("our layout").split(split);
                let mut got = Vec::new();
                let mut diags = crate::Diagnostics::new();
                for k in 0..runs.runs() {
                    runs.run(k, &mut diags, &mut |e| got.push(e));
                }
                assert!(diags.is_empty(), "{diags:?}");
                assert!(got == want, "case {case}, {split} runs");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    /// A stream large enough to be mapped is scanned from the file and decoded from
    /// the mapping: the runs give the decoded events in any split, each packet is
    /// finished once, and no page of the stream stays mapped after the last run.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_mapped_stream_read_run_by_run_gives_the_decoded_events() {
        use crate::ctf::{open_dir, write_dir, CtfWriteOptions};
        use crate::EventRuns;
        use std::borrow::Cow;

        let events: Vec<crate::Event<'static>> = (0..40_000i64)
            .map(|i| crate::Event {
                ph: Some(Cow::Borrowed(["X", "i", "B", "E"][i as usize % 4])),
                name: Some(Cow::Owned(format!("event number {i} of a mapped stream"))),
                cat: Some(Cow::Borrowed("cat")),
                ts: Some((i * 7919) % 40_009 * 1000),
                dur: (i % 4 == 0).then_some(500),
                pid: Some(crate::Pid::Int(crate::Int64::I(1))),
                tid: Some(crate::Pid::Int(crate::Int64::I(i % 5))),
                args: Some(crate::RawJson::owned(format!(
                    "{{\"n\":{i},\"s\":\"v{i}\"}}"
                ))),
                ..Default::default()
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("tracescope-mapped-{}", std::process::id()));
        let opts = CtfWriteOptions {
            packet_bytes: 8 << 10,
            ..Default::default()
        };
        write_dir(&dir, &events, &opts).expect("write");
        let size = std::fs::metadata(dir.join("chrome_0"))
            .expect("stream")
            .len();
        assert!(size > 2 << 20, "{size} bytes: not mapped");
        let files = open_dir(&dir).expect("open");
        let (want, diags) = files.events().expect("decoded");
        assert!(diags.is_empty(), "{diags:?}");
        for split in [1, 3, 8] {
            let runs = files.runs().expect("our layout").split(split);
            let base = runs.streams[0].data.as_ptr() as usize;
            assert!(runs.streams[0].mapped());
            let mut got = Vec::new();
            let mut diags = crate::Diagnostics::new();
            for k in 0..runs.runs() {
                runs.run(k, &mut diags, &mut |e| got.push(e));
            }
            // Before the events are compared: their names are read from the mapping.
            assert_eq!(mapping_rss_kib(base), 0, "{split} runs");
            assert!(diags.is_empty(), "{diags:?}");
            assert!(got == want, "{split} runs");
            let left = |p: &super::PacketAt| p.left.load(std::sync::atomic::Ordering::Relaxed);
            assert!(runs.packets.iter().all(|p| left(p) == 0));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The index the writer writes names exactly the records a scan of the stream
    /// finds, in the same order, and the runs decode the same events from either,
    /// in any split; a load with the index does not scan.
    #[test]
    fn the_index_names_the_records_the_scan_finds() {
        use crate::ctf::{open_dir, write_dir, CtfWriteOptions, INDEX_FILE};
        use crate::EventRuns;
        use std::borrow::Cow;

        let events: Vec<crate::Event<'static>> = (0..5000i64)
            .map(|i| crate::Event {
                ph: Some(Cow::Borrowed(["X", "i", "B", "E", "C"][i as usize % 5])),
                name: Some(Cow::Owned(format!("e{i}"))),
                ts: Some((i * 7919) % 5003 * 1000),
                dur: (i % 5 == 0).then_some(500),
                pid: Some(crate::Pid::Int(crate::Int64::I(1))),
                tid: Some(crate::Pid::Int(crate::Int64::I(i % 4))),
                args: (i % 3 == 0).then(|| crate::RawJson::owned(format!("{{\"n\":{i}}}"))),
                stack: (i % 7 == 0).then(|| crate::RawJson::owned("[1,2,3]".to_string())),
                ..Default::default()
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("tracescope-index-{}", std::process::id()));
        let opts = CtfWriteOptions {
            packet_bytes: 4 << 10,
            ..Default::default()
        };
        write_dir(&dir, &events, &opts).expect("write");
        let records = |runs: &super::CtfRuns<'_>| -> Vec<u64> {
            (runs.records.iter())
                .flat_map(|m| m.lock().expect("not poisoned").clone())
                .collect()
        };
        let decoded = |runs: super::CtfRuns<'_>| {
            let (mut got, mut diags) = (Vec::new(), crate::Diagnostics::new());
            for k in 0..runs.runs() {
                runs.run(k, &mut diags, &mut |e| got.push(e.into_owned()));
            }
            assert!(diags.is_empty(), "{diags:?}");
            got
        };
        let files = open_dir(&dir).expect("open");
        let indexed = files.runs().expect("our layout");
        assert_eq!(indexed.seqs, Seqs::Indexed);
        let by_index = records(&indexed);
        assert_eq!(by_index.len(), events.len());
        let want = decoded(indexed);
        assert_eq!(want.len(), events.len());
        std::fs::remove_file(dir.join(INDEX_FILE)).expect("an index was written");
        let files = open_dir(&dir).expect("open");
        let scanned = files.runs().expect("our layout");
        assert_eq!(scanned.seqs, Seqs::Placed);
        assert_eq!(records(&scanned), by_index);
        assert!(decoded(scanned) == want);
        for split in [3, 8] {
            let split_runs = files.runs().expect("our layout").split(split);
            assert!(decoded(split_runs) == want, "{split} runs");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
