//! Counter series over a range: how many samples, minimum, maximum, time-weighted
//! average, first and last value and their difference.
//!
//! A counter holds its value until the next sample, so the value at `t0` is the
//! last sample before it: it counts for min/max/first and for the average over the
//! part of the range after `t0`, but not in `count`.

use super::Selection;
use crate::trace::Trace;

/// Statistics of one series over the range (`series` indexes the counter table's
/// series list).
#[derive(Clone, Debug, PartialEq)]
pub struct CounterStats {
    pub series: u32,
    /// Samples with `t0 <= ts < t1`.
    pub count: u64,
    pub min: f64,
    pub max: f64,
    /// Time-weighted over the part of `[t0, t1)` (clipped to the trace) that has a
    /// value; the plain mean of the values when that part has no length.
    pub avg: f64,
    pub first: f64,
    pub last: f64,
}

impl CounterStats {
    pub fn delta(&self) -> f64 {
        self.last - self.first
    }
}

/// Every selected series that has a value in the range, in series order.
pub fn counter_stats(trace: &Trace, sel: &Selection) -> Vec<CounterStats> {
    let c = &trace.tables.counters;
    let (t0, t1) = (sel.t0, sel.t1);
    // Averages need a finite end: a whole-trace question ends at the trace's end.
    let (_, end) = sel.bounds(trace);
    let mut out = Vec::new();
    for (k, series) in c.series.iter().enumerate() {
        if !sel.has_counter(crate::tables::SeriesId::at(k)) || t0 >= t1 {
            continue;
        }
        let (lo, hi) = (series.rows.0 as usize, series.rows.1 as usize);
        let ts = &c.ts[lo..hi];
        let vals = &c.value[lo..hi];
        let a = ts.partition_point(|&x| x < t0);
        let b = a + ts[a..].partition_point(|&x| x < t1);
        let held = a.checked_sub(1);
        let from = held.unwrap_or(a);
        if from >= b {
            continue;
        }
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut area, mut span, mut sum) = (0f64, 0i128, 0f64);
        for i in from..b {
            let v = vals[i];
            min = min.min(v);
            max = max.max(v);
            sum += v;
            let start = ts[i].max(t0);
            let stop = if i + 1 < b { ts[i + 1] } else { end.max(start) }.min(t1);
            let len = (stop as i128 - start as i128).max(0);
            area += v * len as f64;
            span += len;
        }
        let n = (b - from) as f64;
        out.push(CounterStats {
            series: k as u32,
            count: (b - a) as u64,
            min,
            max,
            avg: if span > 0 {
                area / span as f64
            } else {
                sum / n
            },
            first: vals[from],
            last: vals[b - 1],
        });
    }
    out
}
