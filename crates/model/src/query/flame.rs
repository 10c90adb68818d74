//! A thread's CPU samples as a flame chart over time: consecutive samples whose
//! stacks share a frame at some depth make one interval at that depth.
//!
//! A frame id stands for its whole path (frames are tree nodes with one parent), so
//! "same frame at depth d" implies the same frames above it.

use std::ops::Range;

use super::lod::Rows;
use crate::tables::{FrameId, SampleTable};
use crate::trace::Trace;

/// Intervals of one thread, laid out depth by depth (each depth in start order);
/// an interval id indexes the columns. Times are sample indexes, 12 bytes per
/// interval: a 10 M sample profile makes over 10 M intervals.
#[derive(Debug, Default)]
pub struct Flame {
    /// First sample of the interval (a row of the samples table).
    pub first: Vec<u32>,
    /// The sample after its last one; `tail` when it lasts to the thread's end.
    pub after: Vec<u32>,
    pub frame: Vec<u32>,
    pub rows: Rows,
    /// The thread's sample rows end here.
    tail: u32,
    /// When the thread's last sample ends.
    tail_ts: i64,
}

impl Flame {
    /// Builds from sample rows `range` (one thread's, sorted by time). Sample `i`
    /// lasts until the next sample; the last one lasts as long as the one before.
    pub fn build(trace: &Trace, range: Range<usize>) -> Flame {
        let s = &trace.tables.samples;
        let frames = &trace.tables.frames;
        // Intervals in start order: (first sample, frame, depth), and when each ends.
        let mut made: Vec<(u32, u32, u32)> = Vec::new();
        let mut after: Vec<u32> = Vec::new();
        // Open intervals by depth: index into `made`.
        let mut open: Vec<u32> = Vec::new();
        let mut path: Vec<u32> = Vec::new();
        let mut prev_leaf: Option<FrameId> = None;
        let (lo, hi) = (range.start, range.end);
        for i in range {
            let leaf = s.leaf(i);
            if leaf == prev_leaf && i > lo {
                continue;
            }
            prev_leaf = leaf;
            Flame::stack(frames, leaf, &mut path);
            let keep = open
                .iter()
                .zip(&path)
                .take_while(|(&o, &p)| made[o as usize].1 == p)
                .count();
            for &o in &open[keep..] {
                after[o as usize] = i as u32;
            }
            open.truncate(keep);
            for (d, &p) in path.iter().enumerate().skip(keep) {
                open.push(made.len() as u32);
                made.push((i as u32, p, d as u32));
                after.push(hi as u32);
            }
        }
        let tail_ts = match hi - lo {
            0 => 0,
            1 => s.ts(hi - 1),
            _ => s.ts(hi - 1).saturating_add(s.ts(hi - 1) - s.ts(hi - 2)),
        };
        // Depth by depth, keeping start order within a depth (a counting sort).
        let depths = made.iter().map(|m| m.2 as usize + 1).max().unwrap_or(0);
        let mut offsets = vec![0u32; depths + 1];
        for m in &made {
            offsets[m.2 as usize + 1] += 1;
        }
        for d in 0..depths {
            offsets[d + 1] += offsets[d];
        }
        let n = made.len();
        let mut f = Flame {
            first: vec![0; n],
            after: vec![0; n],
            frame: vec![0; n],
            rows: Rows::default(),
            tail: hi as u32,
            tail_ts,
        };
        let mut next = offsets.clone();
        for (m, &a) in made.iter().zip(&after) {
            let k = next[m.2 as usize] as usize;
            next[m.2 as usize] += 1;
            (f.first[k], f.after[k], f.frame[k]) = (m.0, a, m.1);
        }
        f.rows = Rows::from_offsets(&offsets, |i| f.span(s, i as usize));
        f
    }

    /// The frames of a sample's stack, root first, into `path` (emptied first). A
    /// frame table with a cycle would loop forever: the walk stops at its size.
    fn stack(frames: &[crate::tables::Frame], leaf: Option<FrameId>, path: &mut Vec<u32>) {
        path.clear();
        let mut fr = leaf.map(FrameId::raw);
        while let Some(x) =
            fr.filter(|&x| (x as usize) < frames.len() && path.len() <= frames.len())
        {
            path.push(x);
            fr = frames[x as usize].parent.map(FrameId::raw);
        }
        path.reverse();
    }

    /// When interval `i` starts and ends; `samples` is the table it was built from.
    pub fn span(&self, samples: &SampleTable, i: usize) -> (i64, i64) {
        let a = self.after[i];
        let end = if a >= self.tail {
            self.tail_ts
        } else {
            samples.ts(a as usize)
        };
        (samples.ts(self.first[i] as usize), end)
    }

    /// The samples interval `i` stands for.
    pub fn samples(&self, i: usize) -> u32 {
        self.after[i] - self.first[i]
    }

    pub fn depth(&self) -> usize {
        self.rows.rows.len()
    }

    pub fn heap_bytes(&self) -> usize {
        self.first.capacity() * 12 + self.rows.heap_bytes()
    }
}

/// The depth of the flame of sample rows `range` ([`Flame::depth`]) without
/// building it: the longest stack among the samples, each distinct frame's stack
/// walked once.
pub fn stack_depth(trace: &Trace, range: Range<usize>) -> usize {
    let frames = &trace.tables.frames;
    // 0: not walked yet; else the stack's length + 1.
    let mut len_of = vec![0u32; frames.len()];
    let mut path = Vec::new();
    let mut deepest = 0;
    for leaf in trace.tables.samples.leaves(range).flatten() {
        let Some(seen) = len_of.get_mut(leaf.raw() as usize) else {
            continue;
        };
        if *seen == 0 {
            Flame::stack(frames, Some(leaf), &mut path);
            *seen = path.len() as u32 + 1;
            deepest = deepest.max(path.len());
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::super::lod::Ids;
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
        let list: Vec<_> = (0..f.frame.len())
            .map(|i| {
                let (start, end) = f.span(&t.tables.samples, i);
                (name(i), start, end, f.samples(i))
            })
            .collect();
        // Depth 0 first, then depth 1, each in start order; the last sample lasts as
        // long as the one before it.
        assert_eq!(
            list,
            vec![
                ("a".into(), 1000, 4000, 3),
                ("a".into(), 5000, 6000, 1),
                ("b".into(), 1000, 3000, 2),
                ("c".into(), 3000, 4000, 1),
            ]
        );
        assert_eq!(f.depth(), 2);
        assert_eq!(f.rows.rows[0].ids, Ids::Range { first: 0, len: 2 });
        assert_eq!(f.rows.rows[1].ids, Ids::Range { first: 2, len: 2 });
    }

    /// Every thread's sample rows, as the index splits them (samples are sorted by
    /// thread, then time).
    fn thread_ranges(t: &Trace) -> Vec<Range<usize>> {
        t.tables.samples.threads().map(|(_, rows)| rows).collect()
    }

    /// The summary reads a samples track's rows from `stack_depth` while the flames
    /// are still being built: it must be the built flame's depth, for stacks that
    /// share frames, a sample without a stack, a leaf outside the frame table and
    /// a frame table whose parents make a cycle.
    #[test]
    fn stack_depth_is_the_flame_depth_without_building_it() {
        let fixtures =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let mut texts = vec![
            r#"{"traceEvents":[
              {"ph":"P","name":"s","pid":1,"tid":1,"ts":1,"sf":2},
              {"ph":"P","name":"s","pid":1,"tid":1,"ts":2,"sf":4},
              {"ph":"P","name":"s","pid":1,"tid":1,"ts":3},
              {"ph":"P","name":"s","pid":1,"tid":2,"ts":3,"sf":1},
              {"ph":"P","name":"s","pid":1,"tid":3,"ts":4,"sf":99}],
              "stackFrames":{"1":{"name":"a"},"2":{"name":"b","parent":"1"},
                "3":{"name":"c","parent":"2"},"4":{"name":"d","parent":"3"}}}"#
                .to_string(),
            r#"{"traceEvents":[
              {"ph":"P","name":"s","pid":1,"tid":1,"ts":1,"sf":1},
              {"ph":"P","name":"s","pid":1,"tid":1,"ts":2,"sf":3}],
              "stackFrames":{"1":{"name":"a","parent":"2"},"2":{"name":"b","parent":"1"},
                "3":{"name":"c"}}}"#
                .to_string(),
        ];
        for f in [
            "diff-profile-base.cpuprofile",
            "diff-profile-new.cpuprofile",
        ] {
            texts.push(std::fs::read_to_string(fixtures.join(f)).unwrap());
        }
        let mut depths = Vec::new();
        for text in texts {
            let opts = LoadOptions {
                source_name: "t".into(),
                ..Default::default()
            };
            let t = Trace::from_json(Box::new(text), 0, &opts).unwrap();
            assert!(!t.tables.samples.is_empty());
            for r in thread_ranges(&t) {
                let built = Flame::build(&t, r.clone()).depth();
                assert_eq!(stack_depth(&t, r), built);
                depths.push(built);
            }
        }
        // The hand-made traces' threads: a>b>c>d; a; a leaf not in the table; the
        // cycle a<->b (the load cuts it: one frame deep).
        assert_eq!(&depths[..4], &[4, 1, 0, 1]);
        assert!(depths[4..].iter().all(|&d| d > 1), "{depths:?}");
    }
}
