//! Decodes the packets of a stream straight into the trace's event vector, in
//! parallel. Events are large (hundreds of bytes), so building per-packet vectors and
//! then appending them costs a second copy and page faults on one core for every
//! event; here each packet gets its own disjoint, exactly sized region of the final
//! vector, found by a cheap counting pass first.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::fast::{count_packet, decode_packet, FastLayout, Packet, Sink};
use super::order::Decoded;
use crate::Event;

/// A packet's region of the output: `n` of its slots are initialized.
struct Slots<'s, 'a> {
    events: &'s mut [MaybeUninit<Event<'a>>],
    seqs: &'s mut [u64],
    n: usize,
    /// Set once the region is complete and owned by the vector.
    keep: bool,
}

impl<'a> Sink<'a> for Slots<'_, 'a> {
    fn push(&mut self, ev: Event<'a>, seq: u64) -> Option<()> {
        let slot = self.events.get_mut(self.n)?;
        slot.write(ev);
        self.seqs[self.n] = seq;
        self.n += 1;
        Some(())
    }
}

impl Drop for Slots<'_, '_> {
    fn drop(&mut self) {
        if !self.keep {
            for slot in &mut self.events[..self.n] {
                // SAFETY: the first `n` slots were written by `push` and, not kept,
                // are owned by this region alone.
                unsafe { slot.assume_init_drop() };
            }
        }
    }
}

/// Appends the events of `packets` to `out` in packet order; `false` (with `out`
/// unchanged) when some packet cannot be counted or decoded this way.
pub(crate) fn fill<'a>(
    out: &mut Decoded<'a>,
    data: &'a [u8],
    packets: &[Packet],
    layout: &FastLayout,
) -> bool {
    let counts: Option<Vec<usize>> = packets
        .par_iter()
        .map(|&p| count_packet(data, p, layout))
        .collect();
    let Some(counts) = counts else {
        return false;
    };
    let n: usize = counts.iter().sum();
    let old = out.events.len();
    out.events.reserve(n);
    out.seqs.resize(old + n, 0);
    let mut events = &mut out.events.spare_capacity_mut()[..n];
    huge_pages(events);
    let mut seqs = &mut out.seqs[old..];
    let mut regions = Vec::with_capacity(packets.len());
    for (&p, &c) in packets.iter().zip(&counts) {
        let (e, rest) = std::mem::take(&mut events).split_at_mut(c);
        events = rest;
        let (s, rest) = std::mem::take(&mut seqs).split_at_mut(c);
        seqs = rest;
        let slots = Slots {
            events: e,
            seqs: s,
            n: 0,
            keep: false,
        };
        regions.push((p, slots));
    }
    let mut done: Vec<(bool, Slots<'_, 'a>)> = regions
        .into_par_iter()
        .map(|(p, mut slots)| {
            let ok = decode_packet(data, p, layout, &mut slots).is_some()
                && slots.n == slots.events.len();
            (ok, slots)
        })
        .collect();
    let ok = done.iter().all(|(ok, _)| *ok);
    if ok {
        done.iter_mut().for_each(|(_, s)| s.keep = true);
    }
    // Not kept: each region drops the events it holds.
    drop(done);
    if !ok {
        out.seqs.truncate(old);
        return false;
    }
    // SAFETY: the regions tile `old..old + n` and every one was filled completely
    // (`n == len`) and kept, so all those slots are initialized and owned by the vector.
    unsafe { out.events.set_len(old + n) };
    true
}

/// Asks for transparent huge pages under a large fresh buffer: filling it then takes
/// a few hundred page faults instead of one per 4 KiB (each charged to the memory
/// cgroup under a shared lock), the main cost of writing hundreds of MB of events.
#[cfg(target_os = "linux")]
fn huge_pages<T>(buf: &mut [T]) {
    const HUGE: usize = 2 << 20;
    let start = (buf.as_mut_ptr() as usize).next_multiple_of(HUGE);
    let end = (buf.as_mut_ptr() as usize + std::mem::size_of_val(buf)) & !(HUGE - 1);
    if end > start {
        // SAFETY: advice only, on whole pages inside memory this buffer owns; the
        // kernel may ignore it.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages<T>(_: &mut [T]) {}
