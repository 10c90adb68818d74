//! A thread's CPU samples as a flame chart over time: consecutive samples whose
//! stacks share a frame at some depth make one interval at that depth.
//!
//! A frame id stands for its whole path (frames are tree nodes with one parent), so
//! "same frame at depth d" implies the same frames above it.

use std::ops::Range;

use super::lod::Rows;
use crate::tables::NONE;
use crate::trace::Trace;

/// Intervals of one thread, as rows by depth (ids index `start`/`end`/`frame`).
#[derive(Debug, Default)]
pub struct Flame {
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub frame: Vec<u32>,
    /// Samples each interval stands for.
    pub samples: Vec<u32>,
    pub rows: Rows,
}

impl Flame {
    /// Builds from sample rows `range` (one thread's, sorted by time). Sample `i`
    /// lasts until the next sample; the last one lasts as long as the one before.
    pub fn build(trace: &Trace, range: Range<usize>) -> Flame {
        let s = &trace.tables.samples;
        let frames = &trace.tables.frames;
        let mut f = Flame::default();
        // Open intervals by depth: index into f's columns.
        let mut open: Vec<u32> = Vec::new();
        let mut path: Vec<u32> = Vec::new();
        let mut by_depth: Vec<(u32, u32)> = Vec::new(); // (interval, depth)
        let mut prev_leaf = NONE;
        let (lo, hi) = (range.start, range.end);
        for i in range.clone() {
            let ts = s.ts[i];
            let leaf = s.frame[i];
            if leaf == prev_leaf && i > lo {
                for &o in &open {
                    f.samples[o as usize] += 1;
                }
                continue;
            }
            prev_leaf = leaf;
            path.clear();
            let mut fr = leaf;
            // A frame table with a cycle would loop forever: stop at its size.
            while fr != NONE && (fr as usize) < frames.len() && path.len() <= frames.len() {
                path.push(fr);
                fr = frames[fr as usize].parent;
            }
            path.reverse();
            let keep = open
                .iter()
                .zip(&path)
                .take_while(|(&o, &p)| f.frame[o as usize] == p)
                .count();
            for &o in &open[keep..] {
                f.end[o as usize] = ts;
            }
            open.truncate(keep);
            for &o in &open {
                f.samples[o as usize] += 1;
            }
            for (d, &p) in path.iter().enumerate().skip(keep) {
                let id = f.start.len() as u32;
                f.start.push(ts);
                f.end.push(ts);
                f.frame.push(p);
                f.samples.push(1);
                open.push(id);
                by_depth.push((id, d as u32));
            }
        }
        if hi > lo {
            let last = s.ts[hi - 1];
            let step = if hi - lo >= 2 { last - s.ts[hi - 2] } else { 0 };
            for &o in &open {
                f.end[o as usize] = last.saturating_add(step);
            }
        }
        // Intervals were created in start order, so each depth's list is sorted.
        let (start, end) = (&f.start, &f.end);
        f.rows = Rows::build(by_depth.into_iter(), 0, |i| {
            (start[i as usize], end[i as usize])
        });
        f
    }

    pub fn depth(&self) -> usize {
        self.rows.rows.len()
    }

    pub fn heap_bytes(&self) -> usize {
        self.start.capacity() * 24 + self.rows.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LoadOptions, Trace};

    #[test]
    fn samples_with_the_same_stack_make_one_interval() {
        // Stacks over time: a>b, a>b, a>c, (empty), a.
        let json = r#"{"traceEvents":[
          {"ph":"P","name":"s","pid":1,"tid":1,"ts":1,"sf":2},
          {"ph":"P","name":"s","pid":1,"tid":1,"ts":2,"sf":2},
          {"ph":"P","name":"s","pid":1,"tid":1,"ts":3,"sf":3},
          {"ph":"P","name":"s","pid":1,"tid":1,"ts":4},
          {"ph":"P","name":"s","pid":1,"tid":1,"ts":5,"sf":1}],
          "stackFrames":{"1":{"name":"a"},"2":{"name":"b","parent":"1"},"3":{"name":"c","parent":"1"}}}"#;
        let t = Trace::from_json(Box::new(json.to_string()), 0, &LoadOptions::default()).unwrap();
        let f = Flame::build(&t, 0..t.tables.samples.len());
        let name = |i: usize| t.str(t.tables.frames[f.frame[i] as usize].name).to_string();
        let list: Vec<_> = (0..f.start.len())
            .map(|i| (name(i), f.start[i], f.end[i], f.samples[i]))
            .collect();
        assert_eq!(
            list,
            vec![
                ("a".into(), 1000, 4000, 3),
                ("b".into(), 1000, 3000, 2),
                ("c".into(), 3000, 4000, 1),
                ("a".into(), 5000, 6000, 1),
            ]
        );
        assert_eq!(f.depth(), 2);
        assert_eq!(f.rows.rows[0].ids, vec![0, 3]);
        assert_eq!(f.rows.rows[1].ids, vec![1, 2]);
    }
}
