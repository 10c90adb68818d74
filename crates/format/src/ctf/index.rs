//! The record index a trace in our own layout carries beside its stream files:
//! where each event's record is, in input order, exactly as the scan behind
//! [`super::CtfFiles::runs`] finds it. With it a load skips that scan, a pass over every byte
//! of the streams that was a third of a CTF load. The file is hidden
//! ([`INDEX_FILE`]): babeltrace2 and our reader take no hidden file for a stream.
//!
//! [`super::write_dir`] writes it. A reader trusts it only when it describes the
//! streams as they are: as many, each of the same length, with the same packets
//! whose preambles (uuid, times, sizes, sequence number) are the same bytes, and
//! every record inside its packet's content. Each record is still checked as it is
//! decoded: it must carry the `seq` of its place in the input. Every write draws a
//! new uuid, which every packet's preamble holds, so an index written for other
//! streams (an earlier write to the same directory, another trace's) is never
//! followed; what an index is not checked for is leaving records out, which only
//! an index crafted for the purpose does (as a stream could leave them out).
//!
//! Layout, little-endian: the 8 bytes `TSCTFIX1`; the number of streams (u32); per stream, its
//! length in bytes and its number of packets (u64 each); every packet's preamble
//! ([`PACKET_PREAMBLE`] bytes), the packets of each stream in turn; the number of
//! records (u64); each record as `packet << 32 | offset` (u64), `packet` numbering
//! the packets of all streams in turn and `offset` counting from its packet's start.

use std::fs::File;

use rayon::prelude::*;

use super::fast::Packet;
use super::runs::read_at;
use super::writer::PACKET_PREAMBLE;

/// The index's name in a trace directory.
pub const INDEX_FILE: &str = ".tracescope-index";
/// The first bytes of an index (its format's version in the last one).
const MAGIC: &[u8; 8] = b"TSCTFIX1";
/// The bits of a record's offset in the index (and the packet's above them).
pub(crate) const OFFSET_BITS: u32 = 32;

/// An index file whose head is read: what it says of the streams, and where its
/// records are (read only once the streams are known to be the ones described).
pub(crate) struct RecordIndex {
    file: File,
    /// Per stream: its length in bytes and its number of packets.
    streams: Vec<(u64, u64)>,
    /// Every packet's preamble, one after another.
    preambles: Vec<u8>,
    /// Where the records start in the file, and how many there are.
    records_at: u64,
    len: usize,
}

impl RecordIndex {
    /// The index in `file`, its head read; `None` when the file is not a whole
    /// index (its length is checked against the counts it gives).
    pub(crate) fn open(file: File) -> Option<RecordIndex> {
        let size = file.metadata().ok()?.len();
        let mut at = 0u64;
        let mut take = |n: usize| -> Option<Vec<u8>> {
            // Never more than the file holds: a count is not trusted for an allocation.
            if n as u64 > size.checked_sub(at)? {
                return None;
            }
            let mut buf = vec![0; n];
            read_at(&file, &mut buf, at).then_some(())?;
            at += n as u64;
            Some(buf)
        };
        let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let head = take(MAGIC.len() + 4)?;
        let (magic, count) = head.split_at(MAGIC.len());
        if magic != MAGIC {
            return None;
        }
        let count = u32::from_le_bytes(count.try_into().expect("4 bytes")) as usize;
        let streams: Vec<(u64, u64)> = (take(count.checked_mul(16)?)?.chunks_exact(16))
            .map(|s| (u64_of(&s[..8]), u64_of(&s[8..])))
            .collect();
        let packets: u64 = streams.iter().try_fold(0u64, |a, s| a.checked_add(s.1))?;
        let preambles = take(
            usize::try_from(packets)
                .ok()?
                .checked_mul(PACKET_PREAMBLE)?,
        )?;
        let len = usize::try_from(u64_of(&take(8)?)).ok()?;
        let records_at = at;
        if size.checked_sub(records_at)? != (len as u64).checked_mul(8)? {
            return None;
        }
        Some(RecordIndex {
            file,
            streams,
            preambles,
            records_at,
            len,
        })
    }

    /// The number of records.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the index describes these streams: per stream, its length and its
    /// packets (`packets`, with their `preambles` in turn) as the file has them.
    pub(crate) fn describes(
        &self,
        lengths: &[usize],
        packets: &[Vec<Packet>],
        preambles: &[u8],
    ) -> bool {
        self.streams.len() == lengths.len()
            && (self.streams.iter().zip(lengths).zip(packets))
                .all(|((&(len, n), &l), p)| len == l as u64 && n == p.len() as u64)
            && self.preambles == preambles
    }

    /// The records in `runs` consecutive runs (`k * len / runs` onwards for run
    /// `k`), each read straight into a vector of its own, in parallel, and given
    /// to `each` to check and recode in place; `None` when a read or `each` fails.
    pub(crate) fn runs(
        &self,
        runs: usize,
        each: impl Fn(&mut [u64]) -> Option<()> + Sync,
    ) -> Option<Vec<Vec<u64>>> {
        let n = self.len;
        (0..runs)
            .into_par_iter()
            .map(|k| {
                let (from, to) = (k * n / runs, (k + 1) * n / runs);
                let mut run = vec![0u64; to - from];
                // SAFETY: any bytes are a valid `u64`, and a `u64` slice is a byte
                // slice of 8 times its length, more strictly aligned.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(run.as_mut_ptr().cast::<u8>(), run.len() * 8)
                };
                read_at(&self.file, bytes, self.records_at + from as u64 * 8).then_some(())?;
                for r in &mut run {
                    *r = u64::from_le(*r);
                }
                each(&mut run)?;
                Some(run)
            })
            .collect()
    }
}

/// The index of streams whose packets had `preambles` (per stream, as many as
/// `streams` says), with `records` in input order (see the module's layout).
pub(crate) fn encode(streams: &[(u64, u64)], preambles: &[u8], records: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + 16 * streams.len() + preambles.len() + 8 * records.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(streams.len() as u32).to_le_bytes());
    for &(len, packets) in streams {
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&packets.to_le_bytes());
    }
    out.extend_from_slice(preambles);
    out.extend_from_slice(&(records.len() as u64).to_le_bytes());
    for r in records {
        out.extend_from_slice(&r.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` as an index file, opened.
    fn open(bytes: &[u8], name: &str) -> Option<RecordIndex> {
        let path =
            std::env::temp_dir().join(format!("tracescope-ix-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).expect("write");
        let file = File::open(&path).expect("open");
        let _ = std::fs::remove_file(&path);
        RecordIndex::open(file)
    }

    /// An index reads back as written, in any number of runs; any cut of it, an
    /// extra byte, another magic or counts past its length do not read at all.
    #[test]
    fn an_index_reads_back_whole_or_not_at_all() {
        let streams = [(3 * 4096, 2), (4096, 1)];
        let preambles: Vec<u8> = (0..3 * PACKET_PREAMBLE).map(|i| i as u8).collect();
        let records: Vec<u64> = (0..50).map(|i| (i % 3) << OFFSET_BITS | (72 + i)).collect();
        let bytes = encode(&streams, &preambles, &records);
        let ix = open(&bytes, "whole").expect("reads back");
        assert_eq!(ix.streams, streams);
        assert_eq!(ix.preambles, preambles);
        assert_eq!(ix.len(), records.len());
        for runs in [1, 3, 7, 50] {
            let got = ix.runs(runs, |_| Some(())).expect("the records");
            assert_eq!(got.len(), runs);
            assert_eq!(got.concat(), records, "{runs} runs");
            let starts: Vec<usize> = got
                .iter()
                .scan(0, |at, r| Some(std::mem::replace(at, *at + r.len())))
                .collect();
            assert!(starts
                .iter()
                .enumerate()
                .all(|(k, &s)| s == k * records.len() / runs));
        }
        // A run `each` refuses: the second of three starts at record 16.
        let refuse = |r: u64| move |run: &mut [u64]| (run[0] != r).then_some(());
        assert!(ix.runs(3, refuse(records[16])).is_none());
        assert!(ix.runs(3, refuse(records[17])).is_some());
        for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
            assert!(open(&bytes[..cut], "cut").is_none(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(open(&longer, "longer").is_none());
        let mut other = bytes.clone();
        other[7] = b'2';
        assert!(open(&other, "other").is_none());
        // Counts past the file's length are refused, not allocated.
        for (streams, packets) in [(u32::MAX, 0u64), (1, u64::MAX), (1, 1 << 40)] {
            let mut huge = MAGIC.to_vec();
            huge.extend_from_slice(&streams.to_le_bytes());
            huge.extend_from_slice(&0u64.to_le_bytes());
            huge.extend_from_slice(&packets.to_le_bytes());
            assert!(
                open(&huge, "huge").is_none(),
                "{streams} streams, {packets} packets"
            );
        }
    }

    /// The index describes streams only as they are: their number, lengths,
    /// packets and every byte of the packets' preambles.
    #[test]
    fn an_index_describes_only_the_streams_it_was_written_for() {
        let packet = |pos: usize| Packet {
            pos: pos as u64,
            start: pos + PACKET_PREAMBLE,
            end: pos + 200,
            next: pos + 4096,
        };
        let packets = vec![vec![packet(0), packet(4096)]];
        let preambles: Vec<u8> = (0..2 * PACKET_PREAMBLE).map(|i| i as u8).collect();
        let ix = open(&encode(&[(8192, 2)], &preambles, &[]), "describes").expect("reads");
        assert!(ix.describes(&[8192], &packets, &preambles));
        assert!(!ix.describes(&[8193], &packets, &preambles));
        assert!(!ix.describes(&[8192, 0], &[packets[0].clone(), vec![]], &preambles));
        assert!(!ix.describes(&[8192], &[packets[0][..1].to_vec()], &preambles));
        for at in [0, PACKET_PREAMBLE + 30] {
            let mut changed = preambles.clone();
            changed[at] ^= 1;
            assert!(!ix.describes(&[8192], &packets, &changed), "byte {at}");
        }
    }
}
