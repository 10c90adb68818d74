//! The record index a trace in our own layout carries beside its stream files:
//! where each event's record is, in input order, exactly as the scan of
//! [`super::runs`] finds it. With it a load skips that scan, a pass over every byte
//! of the streams that was a third of a CTF load. The file is hidden
//! ([`INDEX_FILE`]): babeltrace2 and our reader take no hidden file for a stream.
//!
//! [`super::write_dir`] writes it. A reader trusts it only when it describes the
//! streams as they are: as many, each of the same length, with the same packets
//! whose preambles (uuid, times, sizes, sequence number) are the same bytes, and
//! every record inside its packet's content. Each record is still checked as it is
//! decoded: it must carry the `seq` of its place in the input.
//!
//! Layout, little-endian: [`MAGIC`]; the number of streams (u32); per stream, its
//! length in bytes and its number of packets (u64 each); every packet's preamble
//! ([`PACKET_PREAMBLE`] bytes), the packets of each stream in turn; the number of
//! records (u64); each record as `packet << 32 | offset` (u64), `packet` numbering
//! the packets of all streams in turn and `offset` counting from its packet's start.

use super::fast::Packet;
use super::writer::PACKET_PREAMBLE;

/// The index's name in a trace directory.
pub const INDEX_FILE: &str = ".tracescope-index";
/// The first bytes of an index (its format's version in the last one).
const MAGIC: &[u8; 8] = b"TSCTFIX1";
/// The bits of a record's offset in the index (and the packet's above them).
pub(crate) const OFFSET_BITS: u32 = 32;

/// An index as read: what it says of the streams, and the records.
pub(crate) struct RecordIndex {
    /// Per stream: its length in bytes and its number of packets.
    streams: Vec<(u64, u64)>,
    /// Every packet's preamble, one after another.
    preambles: Vec<u8>,
    /// Every event's record in input order (see the module's layout).
    pub(crate) records: Vec<u64>,
}

impl RecordIndex {
    /// The index in `bytes`; `None` when they are not a whole index.
    pub(crate) fn parse(bytes: &[u8]) -> Option<RecordIndex> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let count = r.u32()?;
        let mut streams = Vec::new();
        for _ in 0..count {
            streams.push((r.u64()?, r.u64()?));
        }
        let packets: u64 = streams.iter().try_fold(0u64, |a, s| a.checked_add(s.1))?;
        let preamble_bytes = usize::try_from(packets)
            .ok()?
            .checked_mul(PACKET_PREAMBLE)?;
        let preambles = r.take(preamble_bytes)?.to_vec();
        let n = usize::try_from(r.u64()?).ok()?;
        let words = r.take(n.checked_mul(8)?)?;
        if !r.0.is_empty() {
            return None;
        }
        let records = (words.chunks_exact(8))
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        Some(RecordIndex {
            streams,
            preambles,
            records,
        })
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
}

/// The index of streams whose packets had `preambles` (per stream, as many as
/// `packets` says), with `records` in input order (see the module's layout).
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

/// Reads an index's fields in turn.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index reads back as written, and any cut of it, an extra byte or another
    /// magic does not read at all.
    #[test]
    fn an_index_reads_back_whole_or_not_at_all() {
        let streams = [(3 * 4096, 2), (4096, 1)];
        let preambles: Vec<u8> = (0..3 * PACKET_PREAMBLE).map(|i| i as u8).collect();
        let records = [1 << OFFSET_BITS | 80, 72, 2 << OFFSET_BITS | 100];
        let bytes = encode(&streams, &preambles, &records);
        let ix = RecordIndex::parse(&bytes).expect("reads back");
        assert_eq!(ix.streams, streams);
        assert_eq!(ix.preambles, preambles);
        assert_eq!(ix.records, records);
        for cut in 0..bytes.len() {
            assert!(RecordIndex::parse(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(RecordIndex::parse(&longer).is_none());
        let mut other = bytes.clone();
        other[7] = b'2';
        assert!(RecordIndex::parse(&other).is_none());
        // Counts that would overflow are refused, not allocated.
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&1u32.to_le_bytes());
        huge.extend_from_slice(&0u64.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(RecordIndex::parse(&huge).is_none());
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
        let bytes = encode(&[(8192, 2)], &preambles, &[]);
        let ix = RecordIndex::parse(&bytes).expect("reads");
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
