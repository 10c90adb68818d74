//! A trace in tracescope's own layout as [`EventRuns`]: one parallel pass over the
//! packets notes each event's `seq` and where its record starts (16 bytes an event),
//! ordered by `seq` as [`super::order`] orders decoded events; each run then decodes
//! its records straight from the files. The decoded events are never all held at
//! once, which matters when they are hundreds of bytes each and the trace has
//! millions.

use rayon::prelude::*;

use super::fast::{detect, event_at, scan_packet, split_packets, FastLayout, Scratch};
use super::metadata::metadata_text;
use super::tsdl::parse_metadata;
use crate::{DiagKind, Diagnostics, Event, EventRuns};

/// Events per run below which splitting does not pay.
const MIN_RUN: usize = 1 << 14;
/// Stream offsets take the low 48 bits of a record's location.
const OFFSET_BITS: u32 = 48;

/// The events of one trace, in input order, decoded run by run.
pub struct CtfRuns<'a> {
    streams: Vec<&'a [u8]>,
    layout: FastLayout,
    /// `(seq, stream << 48 | offset)` of every event, in input order.
    records: Vec<(u64, u64)>,
    runs: usize,
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

/// The runs of a trace (its metadata and stream files' bytes) when it is in our own
/// layout and the fast path reads every packet of every stream; `None` otherwise, for
/// the general decoder (and its diagnostics).
pub(crate) fn fast_runs<'a>(metadata: &[u8], streams: &[&'a [u8]]) -> Option<CtfRuns<'a>> {
    let meta = parse_metadata(&metadata_text(metadata).ok()?).ok()?;
    let layout = detect(&meta)?;
    let mut records = Vec::new();
    for (k, data) in streams.iter().enumerate() {
        if data.len() as u64 >= 1 << OFFSET_BITS {
            return None;
        }
        let (packets, rest) = split_packets(data);
        if rest.is_some() {
            return None;
        }
        let stream = (k as u64) << OFFSET_BITS;
        let per_packet: Option<Vec<Vec<(u64, u64)>>> = packets
            .par_iter()
            .map(|&p| {
                let mut v = Vec::new();
                scan_packet(data, p, &layout, |seq, at| v.push((seq, stream | at)))?;
                Some(v)
            })
            .collect();
        per_packet?.into_iter().for_each(|v| records.extend(v));
    }
    // Stable, as the decoded events are put in order.
    if !records.is_sorted_by_key(|r| r.0) {
        records.sort_by_key(|r| r.0);
    }
    let runs = (records.len() / MIN_RUN).clamp(1, 4 * rayon::current_num_threads());
    Some(CtfRuns {
        streams: streams.to_vec(),
        layout,
        records,
        runs,
    })
}

impl<'a> EventRuns<'a> for CtfRuns<'a> {
    fn runs(&self) -> usize {
        self.runs
    }

    fn run(&self, k: usize, diags: &mut Diagnostics, each: &mut dyn FnMut(Event<'a>)) {
        let n = self.records.len();
        let (a, b) = (k * n / self.runs, ((k + 1) * n / self.runs).min(n));
        let mut scratch = Scratch::default();
        for &(_, at) in self.records.get(a..b).unwrap_or_default() {
            let (stream, offset) = ((at >> OFFSET_BITS) as usize, at & ((1 << OFFSET_BITS) - 1));
            match event_at(self.streams[stream], offset, &self.layout, &mut scratch) {
                Some(ev) => each(ev),
                // The scan read this record already; only a file changed underneath
                // the map gets here.
                None => diags.add(DiagKind::SyntaxError, offset, || {
                    format!("record at byte {offset} changed since it was first read")
                }),
            }
        }
    }
}
