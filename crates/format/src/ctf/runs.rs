//! A trace in tracescope's own layout as [`EventRuns`]: one parallel pass over the
//! packets notes each event's `seq` and where its record starts (16 bytes an event),
//! ordered by `seq` as [`super::order`] orders decoded events; each run then decodes
//! its records straight from the files. The decoded events are never all held at
//! once, which matters when they are hundreds of bytes each and the trace has
//! millions.
//!
//! A mapped stream file does not stay in memory either: the scan drops each packet's
//! pages once it has noted its records, and the runs count down each packet's
//! records and drop its pages again once the last one is decoded (a run that reads
//! it later faults them back in from the page cache, and a fault may map some
//! cached neighbours along, so a few pages come back). So the memory of a load is
//! the model's, plus the packets being decoded, as for JSON whose parts release
//! their text once parsed.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::fast::{detect, event_at, scan_packet, split_packets_with, FastLayout, Packet, Scratch};
use super::metadata::metadata_text;
use super::tsdl::parse_metadata;
use crate::{DiagKind, Diagnostics, Event, EventRuns};

/// Events per run below which splitting does not pay.
const MIN_RUN: usize = 1 << 14;
/// A packet's records as the scan notes them: `(seq, stream << 48 | offset)`.
type Noted = Vec<(u64, u64)>;

/// Packets scanned between two drops of their pages (8 MiB of our 256 KiB packets).
const SCAN_BATCH: usize = 32;
/// Stream offsets take the low 48 bits of a record's location.
const OFFSET_BITS: u32 = 48;

/// The events of one trace, in input order, decoded run by run.
pub struct CtfRuns<'a> {
    streams: Vec<Stream<'a>>,
    layout: FastLayout,
    /// `(packet, stream << 48 | offset)` of every event, in input order: `packet`
    /// numbers the packets of all streams in turn (see [`Stream::first`]).
    records: Vec<(u64, u64)>,
    runs: usize,
}

/// A stream file's bytes and, when they are a mapping whose pages can be dropped,
/// its packets with the number of their events no run has decoded yet.
struct Stream<'a> {
    data: &'a [u8],
    /// The number of the stream's first packet among the packets of all streams.
    first: u64,
    /// Empty when the bytes are not mapped (nothing to release).
    packets: Vec<(Packet, AtomicUsize)>,
    /// Per batch of [`SCAN_BATCH`] packets, how many are not wholly decoded yet.
    batches_left: Vec<AtomicUsize>,
}

impl<'a> Stream<'a> {
    fn new(data: &'a [u8], first: u64, packets: Vec<(Packet, AtomicUsize)>) -> Self {
        let batches_left = (packets.chunks(SCAN_BATCH))
            .map(|b| AtomicUsize::new(b.len()))
            .collect();
        Stream {
            data,
            first,
            packets,
            batches_left,
        }
    }

    /// Counts `n` more decoded events of packet `k`; drops the pages of its batch
    /// of packets once all of them are decoded (a drop per packet interrupted the
    /// other core as often, to flush its TLB).
    fn decoded(&self, k: usize, n: usize) {
        let (_, left) = &self.packets[k];
        if n > 0 && left.fetch_sub(n, Ordering::AcqRel) == n {
            let b = k / SCAN_BATCH;
            if self.batches_left[b].fetch_sub(1, Ordering::AcqRel) == 1 {
                let first = &self.packets[b * SCAN_BATCH].0;
                let last = &self.packets[((b + 1) * SCAN_BATCH).min(self.packets.len()) - 1].0;
                release(self.data, first.pos as usize..last.next);
            }
        }
    }

    /// Drops the pages of every packet whose events are all decoded, again: a fault
    /// maps the cached pages around it too (64 KiB by default), so a packet done
    /// earlier gets some back when its neighbour is read.
    fn sweep(&self) {
        let mut done: Option<std::ops::Range<usize>> = None;
        for (p, left) in &self.packets {
            let finished = left.load(Ordering::Acquire) == 0;
            match &mut done {
                Some(r) if finished && r.end == p.pos as usize => r.end = p.next,
                _ if finished => {
                    if let Some(r) = done.replace(p.pos as usize..p.next) {
                        release(self.data, r);
                    }
                }
                _ => {
                    if let Some(r) = done.take() {
                        release(self.data, r);
                    }
                }
            }
        }
        if let Some(r) = done {
            release(self.data, r);
        }
    }
}

impl CtfRuns<'_> {
    /// The number of events.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The same events in `runs` runs (at least one): any split gives the same
    /// events in the same order.
    pub fn split(mut self, runs: usize) -> Self {
        self.runs = runs.max(1);
        self
    }
}

/// The runs of a trace (its metadata and stream files' bytes, each with whether it
/// is a file mapping whose pages may be dropped once read) when it is in our own
/// layout and the fast path reads every packet of every stream; `None` otherwise,
/// for the general decoder (and its diagnostics).
pub(crate) fn fast_runs<'a>(metadata: &[u8], files: &[(&'a [u8], bool)]) -> Option<CtfRuns<'a>> {
    let meta = parse_metadata(&metadata_text(metadata).ok()?).ok()?;
    let layout = detect(&meta)?;
    let mut scanned = Vec::new();
    let mut streams = Vec::with_capacity(files.len());
    for (k, &(data, mapped)) in files.iter().enumerate() {
        if data.len() as u64 >= 1 << OFFSET_BITS {
            return None;
        }
        let (packets, rest) = packets_of(data, mapped);
        if rest.is_some() {
            return None;
        }
        let stream = (k as u64) << OFFSET_BITS;
        // Packets are scanned a batch at a time, whose pages are then dropped at
        // once: a drop interrupts the other core to flush its TLB, and per packet
        // that was ~5% of a 1 GB load's samples.
        let batches: Option<Vec<Vec<Noted>>> = packets
            .par_chunks(SCAN_BATCH)
            .map(|batch| {
                let mut scanned = Vec::with_capacity(batch.len());
                for &p in batch {
                    let mut v = Vec::new();
                    scan_packet(data, p, &layout, |seq, at| v.push((seq, stream | at)))?;
                    scanned.push(v);
                }
                if let (true, Some(first), Some(last)) = (mapped, batch.first(), batch.last()) {
                    release(data, first.pos as usize..last.next);
                }
                Some(scanned)
            })
            .collect();
        let per_packet: Vec<Noted> = batches?.into_iter().flatten().collect();
        let left = per_packet.iter().map(|v| AtomicUsize::new(v.len()));
        let packets = match mapped {
            true => packets.into_iter().zip(left).collect(),
            false => Vec::new(),
        };
        streams.push(Stream::new(data, scanned.len() as u64, packets));
        if mapped {
            // The faults of the scan mapped pages of packets scanned before.
            release(data, 0..data.len());
        }
        scanned.extend(per_packet);
    }
    let records = in_seq_order(scanned);
    let runs = (records.len() / MIN_RUN).clamp(1, 4 * rayon::current_num_threads());
    Some(CtfRuns {
        streams,
        layout,
        records,
        runs,
    })
}

/// The scanned `(seq, location)` of every record, per packet (`scanned[k]`: those of
/// packet `k`), as `(k, location)` in `seq` order: the runs then know each record's
/// packet without looking for it. The writer numbers the events 0, 1, 2... in input
/// order, so each record usually goes straight to its place (no sort of millions of
/// pairs); any other numbering (repeated or missing `seq`s) is sorted, stably, as
/// decoded events are put in order.
fn in_seq_order(scanned: Vec<Vec<(u64, u64)>>) -> Vec<(u64, u64)> {
    let n: usize = scanned.iter().map(Vec::len).sum();
    const FREE: u64 = u64::MAX;
    let mut placed = vec![(FREE, 0); n];
    let mut direct = true;
    'place: for (k, v) in scanned.iter().enumerate() {
        for &(seq, at) in v {
            match usize::try_from(seq).ok().and_then(|i| placed.get_mut(i)) {
                Some(slot) if slot.0 == FREE => *slot = (k as u64, at),
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
    let mut records: Vec<(u64, u64, u64)> = scanned
        .into_iter()
        .enumerate()
        .flat_map(|(k, v)| v.into_iter().map(move |(seq, at)| (seq, k as u64, at)))
        .collect();
    records.sort_by_key(|r| r.0);
    records.into_iter().map(|(_, k, at)| (k, at)).collect()
}

/// How many records ahead of the one being decoded a run asks for the memory of.
/// Input order jumps about the file (written in time order), so without this each
/// record is a cache miss the decoder waits for.
const PREFETCH_AHEAD: usize = 16;
/// Bytes from a record's start asked for ahead: most records are shorter.
const PREFETCH_BYTES: usize = 192;

impl CtfRuns<'_> {
    /// Asks the CPU to load the start of the record at `at` into the cache.
    fn prefetch(&self, at: u64) {
        let (stream, offset) = ((at >> OFFSET_BITS) as usize, at & ((1 << OFFSET_BITS) - 1));
        let Some(data) = self.streams.get(stream).map(|s| s.data) else {
            return;
        };
        let start = (offset as usize).min(data.len());
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
        self.runs
    }

    fn run(&self, k: usize, diags: &mut Diagnostics, each: &mut dyn FnMut(Event<'a>)) {
        let n = self.records.len();
        let (a, b) = (k * n / self.runs, ((k + 1) * n / self.runs).min(n));
        let mut scratch = Scratch::default();
        // The mapped packet being read (its number, stream and index in the stream)
        // and how many of its events this run decoded since it came to it.
        let mut current: Option<(u64, usize, usize)> = None;
        let mut decoded = 0;
        let records = self.records.get(a..b).unwrap_or_default();
        for (i, &(packet, at)) in records.iter().enumerate() {
            if let Some(&(_, ahead)) = records.get(i + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            let (stream, offset) = ((at >> OFFSET_BITS) as usize, at & ((1 << OFFSET_BITS) - 1));
            let s = &self.streams[stream];
            if !s.packets.is_empty() {
                if current.is_none_or(|c| c.0 != packet) {
                    if let Some((_, st, p)) = current.take() {
                        self.streams[st].decoded(p, std::mem::take(&mut decoded));
                    }
                    current = Some((packet, stream, (packet - s.first) as usize));
                }
                decoded += 1;
            }
            // The scan read this record already; only a file changed underneath the
            // map fails here.
            if event_at(s.data, offset, &self.layout, &mut scratch, each).is_none() {
                diags.add(DiagKind::SyntaxError, offset, || {
                    format!("record at byte {offset} changed since it was first read")
                });
            }
        }
        if let Some((_, st, p)) = current {
            self.streams[st].decoded(p, decoded);
        }
        for s in &self.streams {
            s.sweep();
        }
    }
}

/// The packets of a stream file ([`split_packets`]). Reading each header maps
/// far more than the header: a fault maps the cached pages around it, a whole
/// large folio where the page cache holds the file in them, so walking the
/// headers of a 1.2 GB stream mapped nearly all of it (0.9-1.1 GB of RSS within
/// 50 ms, before the first record was read, against 0.75 GB at the peak of the
/// whole load of the same trace as JSON). The pages of a mapped file are dropped
/// behind the walk, and the scan then maps each packet only while it reads it.
fn packets_of(data: &[u8], mapped: bool) -> (Vec<Packet>, Option<u64>) {
    packets_in_steps(data, mapped, 32 << 20, |_| {})
}

/// [`packets_of`], dropping the pages walked every `step` bytes; `walked` is told
/// where each packet ends, after any drop.
fn packets_in_steps(
    data: &[u8],
    mapped: bool,
    step: usize,
    mut walked: impl FnMut(usize),
) -> (Vec<Packet>, Option<u64>) {
    let mut dropped = 0;
    let split = split_packets_with(data, |pos| {
        if mapped && pos - dropped >= step {
            release(data, dropped..pos);
            dropped = pos;
        }
        walked(pos);
    });
    if mapped {
        release(data, 0..data.len());
    }
    split
}

/// Drops the mapped pages wholly inside `range` of `data` from the page tables.
#[cfg(unix)]
fn release(data: &[u8], range: std::ops::Range<usize>) {
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
fn release(_: &[u8], _: std::ops::Range<usize>) {}

#[cfg(test)]
mod tests {
    use super::{in_seq_order, packets_in_steps, packets_of, release};
    use crate::ctf::fast::split_packets;
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

    /// Walking the packet headers of a mapped stream keeps little of it mapped, and
    /// none at the end: a 1.2 GB stream was nearly all resident within 50 ms, before
    /// any record was read.
    #[cfg(target_os = "linux")]
    #[test]
    fn walking_the_headers_of_a_mapped_stream_keeps_it_unmapped() {
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

        // The walk alone maps pages (at least each header's)...
        let (packets, rest) = split_packets(&map);
        assert_eq!((packets.len(), rest), (PACKETS, None));
        assert!(
            mapping_rss_kib(base) >= 4,
            "the headers were read through the mapping"
        );
        // ...which an unmapped stream's walk keeps...
        let (packets, rest) = packets_of(&map, false);
        assert_eq!((packets.len(), rest), (PACKETS, None));
        assert!(mapping_rss_kib(base) >= 4);
        // ...and a mapped one's drops as it goes (a fault may map up to a 2 MiB
        // folio ahead) and at the end.
        release(&map, 0..map.len());
        let mut most = 0;
        let (packets, rest) = packets_in_steps(&map, true, 4 * PACKET, |_| {
            most = most.max(mapping_rss_kib(base));
        });
        assert_eq!((packets.len(), rest), (PACKETS, None));
        assert!(
            most <= 2048 + 4 * 64 + 64,
            "{most} KiB mapped at once of 16 MiB"
        );
        assert_eq!(mapping_rss_kib(base), 0);
        assert_eq!(packets[1].pos as usize, PACKET);
    }

    /// Placing by `seq` gives what a stable sort gives, and numberings it cannot
    /// place (repeats, gaps, a `seq` past the count) are sorted stably.
    #[test]
    fn records_in_seq_order_placed_or_sorted() {
        // A stable sort by seq, each record named by its packet's index.
        let sorted = |s: &[Vec<(u64, u64)>]| {
            let mut all: Vec<(u64, u64, u64)> = (s.iter().enumerate())
                .flat_map(|(k, v)| v.iter().map(move |&(seq, at)| (seq, k as u64, at)))
                .collect();
            all.sort_by_key(|r| r.0);
            all.into_iter()
                .map(|(_, k, at)| (k, at))
                .collect::<Vec<_>>()
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
            vec![(0, 0), (0, 10), (1, 11), (1, 20)]
        );
        assert_eq!(
            in_seq_order(vec![vec![(2, 20), (0, 0)], vec![], vec![(3, 30), (1, 10)]]),
            vec![(0, 0), (2, 10), (0, 20), (2, 30)]
        );
    }
}
