//! Flow arrows: which items have flows, the flows of one item, and the arrows with
//! an end in a time window.

use super::tracks::TrackRef;
use crate::tables::SliceRef;
use crate::trace::Trace;

/// Lookups over the flow table, built once.
#[derive(Debug, Default)]
pub struct FlowIndex {
    /// Flow rows sorted by `from_ts`, and by `to_ts`.
    by_from: Vec<u32>,
    by_to: Vec<u32>,
    /// (end key, flow row) sorted, for the flows leaving / entering an item.
    out_of: Vec<(u64, u32)>,
    into: Vec<(u64, u32)>,
    /// One bit per slice / async slice that has a flow.
    slice_bits: Vec<u64>,
    async_bits: Vec<u64>,
}

fn key(r: SliceRef) -> u64 {
    match r {
        SliceRef::Thread(i) => i.raw() as u64,
        SliceRef::Async(i) => 1 << 32 | i.raw() as u64,
    }
}

fn bit(bits: &[u64], i: u32) -> bool {
    bits.get(i as usize / 64)
        .is_some_and(|w| w >> (i % 64) & 1 != 0)
}

impl FlowIndex {
    pub fn build(trace: &Trace) -> FlowIndex {
        let t = &trace.tables;
        let f = &t.flows;
        let n = f.len() as u32;
        let mut by_from: Vec<u32> = (0..n).collect();
        by_from.sort_by_key(|&i| (f.from_ts[i as usize], i));
        let mut by_to: Vec<u32> = (0..n).collect();
        by_to.sort_by_key(|&i| (f.to_ts[i as usize], i));
        let mut out_of: Vec<(u64, u32)> = (0..n).map(|i| (key(f.from[i as usize]), i)).collect();
        out_of.sort_unstable();
        let mut into: Vec<(u64, u32)> = (0..n).map(|i| (key(f.to[i as usize]), i)).collect();
        into.sort_unstable();
        let mut slice_bits = vec![0u64; t.slices.len().div_ceil(64)];
        let mut async_bits = vec![0u64; t.async_slices.len().div_ceil(64)];
        for r in f.from.iter().chain(&f.to) {
            let (bits, i) = match *r {
                SliceRef::Thread(i) => (&mut slice_bits, i.raw()),
                SliceRef::Async(i) => (&mut async_bits, i.raw()),
            };
            if let Some(w) = bits.get_mut(i as usize / 64) {
                *w |= 1 << (i % 64);
            }
        }
        FlowIndex {
            by_from,
            by_to,
            out_of,
            into,
            slice_bits,
            async_bits,
        }
    }

    pub fn slice_has_flows(&self, i: u32) -> bool {
        bit(&self.slice_bits, i)
    }

    pub fn async_has_flows(&self, i: u32) -> bool {
        bit(&self.async_bits, i)
    }

    /// Flow rows leaving (`out == true`) or entering an item.
    pub fn of(&self, r: SliceRef, out: bool) -> Vec<u32> {
        let list = if out { &self.out_of } else { &self.into };
        let k = key(r);
        let a = list.partition_point(|e| e.0 < k);
        list[a..]
            .iter()
            .take_while(|e| e.0 == k)
            .map(|e| e.1)
            .collect()
    }

    pub fn heap_bytes(&self) -> usize {
        (self.by_from.capacity() + self.by_to.capacity()) * 4
            + (self.out_of.capacity() + self.into.capacity()) * 16
            + (self.slice_bits.capacity() + self.async_bits.capacity()) * 8
    }
}

/// Where an end of a flow is drawn: its track and row there.
pub fn end_place(trace: &Trace, r: SliceRef) -> Option<(TrackRef, u32)> {
    let t = &trace.tables;
    match r {
        SliceRef::Thread(i) => {
            let i = i.index();
            let s = &t.slices;
            let track = s.tracks.get(s.track_of(i))?;
            Some((
                TrackRef::Slices {
                    thread: track.thread,
                    lane: track.lane,
                },
                s.depth(i),
            ))
        }
        SliceRef::Async(i) => {
            let i = i.index();
            let a = &t.async_slices;
            Some((
                TrackRef::Async {
                    group: *a.group.get(i)?,
                },
                a.lane[i],
            ))
        }
    }
}

/// The id of an end: its slice or async slice row.
pub fn end_id(r: SliceRef) -> u32 {
    r.raw()
}

/// Flow rows with an end in `[t0, t1]`, in time order of that end (arrows leaving
/// the window first), at most `limit`; and whether more were left out.
pub fn flows_in_window(
    trace: &Trace,
    fi: &FlowIndex,
    t0: i64,
    t1: i64,
    limit: usize,
) -> (Vec<u32>, bool) {
    let f = &trace.tables.flows;
    let range = |list: &[u32], ts: &[i64]| {
        let a = list.partition_point(|&i| ts[i as usize] < t0);
        let b = list.partition_point(|&i| ts[i as usize] <= t1);
        a..b
    };
    let from = range(&fi.by_from, &f.from_ts);
    let to = range(&fi.by_to, &f.to_ts);
    let mut out: Vec<u32> = fi.by_from[from].iter().copied().take(limit + 1).collect();
    let inside = |ts: i64| (t0..=t1).contains(&ts);
    for &i in &fi.by_to[to] {
        if out.len() > limit {
            break;
        }
        if !inside(f.from_ts[i as usize]) {
            out.push(i);
        }
    }
    let more = out.len() > limit;
    out.truncate(limit);
    (out, more)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::SliceId;
    use crate::{LoadOptions, Trace};

    #[test]
    fn flows_of_items_and_in_windows() {
        // Two v1 flows: A(0..10) -> B(20..30) on another thread, B -> C(100..110).
        let json = r#"[
          {"ph":"X","name":"A","pid":1,"tid":1,"ts":0,"dur":10},
          {"ph":"X","name":"B","pid":1,"tid":2,"ts":20,"dur":10},
          {"ph":"X","name":"C","pid":1,"tid":1,"ts":100,"dur":10},
          {"ph":"s","name":"f","cat":"c","id":1,"pid":1,"tid":1,"ts":5},
          {"ph":"f","name":"f","cat":"c","id":1,"pid":1,"tid":2,"ts":20},
          {"ph":"s","name":"g","cat":"c","id":2,"pid":1,"tid":2,"ts":25},
          {"ph":"f","name":"g","cat":"c","id":2,"pid":1,"tid":1,"ts":100}]"#;
        let t = Trace::from_json(Box::new(json.to_string()), 0, &LoadOptions::default()).unwrap();
        let fi = FlowIndex::build(&t);
        assert_eq!(t.tables.flows.len(), 2);
        let s = &t.tables.slices;
        let row = |name: &str| (0..s.len()).find(|&i| t.str(s.name[i]) == name).unwrap() as u32;
        let (a, b, c) = (row("A"), row("B"), row("C"));
        assert!(fi.slice_has_flows(a) && fi.slice_has_flows(b) && fi.slice_has_flows(c));
        assert_eq!(fi.of(SliceRef::Thread(SliceId::new(b)), false).len(), 1);
        assert_eq!(fi.of(SliceRef::Thread(SliceId::new(b)), true).len(), 1);
        assert_eq!(fi.of(SliceRef::Thread(SliceId::new(a)), false).len(), 0);
        // Window [90us, 200us] holds only the end of the second flow.
        let (w, more) = flows_in_window(&t, &fi, 90_000, 200_000, 10);
        assert_eq!((w.len(), more), (1, false));
        assert_eq!(
            t.tables.flows.to[w[0] as usize],
            SliceRef::Thread(SliceId::new(c))
        );
        // The whole trace, limited to one arrow.
        let (w, more) = flows_in_window(&t, &fi, 0, 200_000, 1);
        assert_eq!((w.len(), more), (1, true));
        let (w, _) = flows_in_window(&t, &fi, 0, 200_000, 10);
        assert_eq!(w.len(), 2);
        assert_eq!(
            end_place(&t, SliceRef::Thread(SliceId::new(b)))
                .unwrap()
                .0
                .to_string(),
            format!("s:{}:0", s.thread(b as usize))
        );
    }
}
