//! What a range question is about: a time range and, optionally, the tracks the user
//! picked (by thread for slices and samples, by series for counters).

use crate::query::TrackRef;
use crate::tables::{Lane, SeriesId, ThreadId};
use crate::trace::Trace;

/// A time range `[t0, t1)` and an optional set of tracks.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    pub t0: i64,
    pub t1: i64,
    /// `None`: every track. Otherwise only these (other kinds of tracks are ignored
    /// by each question: slice statistics look at `Slices` tracks, and so on).
    pub tracks: Option<Vec<TrackRef>>,
}

impl Selection {
    /// The whole trace: every track, all time.
    pub fn all() -> Selection {
        Selection {
            t0: i64::MIN,
            t1: i64::MAX,
            tracks: None,
        }
    }

    /// `[t0, t1)` on every track.
    pub fn range(t0: i64, t1: i64) -> Selection {
        Selection {
            t0,
            t1,
            tracks: None,
        }
    }

    /// Whether a thread's slice lane is selected.
    pub fn has_slices(&self, thread: ThreadId, lane: Lane) -> bool {
        self.tracks
            .as_ref()
            .is_none_or(|ts| ts.contains(&TrackRef::Slices { thread, lane }))
    }

    /// Whether a thread's CPU samples are selected.
    pub fn has_samples(&self, thread: ThreadId) -> bool {
        self.tracks
            .as_ref()
            .is_none_or(|ts| ts.contains(&TrackRef::Samples { thread }))
    }

    /// Whether a counter series is selected.
    pub fn has_counter(&self, series: SeriesId) -> bool {
        self.tracks
            .as_ref()
            .is_none_or(|ts| ts.contains(&TrackRef::Counter { series }))
    }

    /// The range clipped to the trace's bounds (a whole-trace question reports the
    /// trace's own start and end).
    pub fn bounds(&self, trace: &Trace) -> (i64, i64) {
        let start = trace.info.start_ns.unwrap_or(0);
        let end = trace.info.end_ns.unwrap_or(start);
        (self.t0.max(start), self.t1.min(end).max(self.t0.max(start)))
    }
}

/// The trace's time bounds as the viewer shows them: over events (the spec's
/// bounds, as in `stats`), widened to the CPU samples, whose times come from
/// profile deltas and may run past the last event (a raw `.cpuprofile` has only
/// those); a thread's last sample lasts as long as the interval before it, as on
/// its flame chart. `None` for a trace with no time at all.
pub fn time_bounds(trace: &Trace) -> Option<(i64, i64)> {
    let s = &trace.tables.samples;
    let mut b = trace.info.start_ns.zip(trace.info.end_ns);
    for (_, rows) in s.threads() {
        let (first, last) = (s.ts(rows.start), s.ts(rows.end - 1));
        let step = if rows.len() >= 2 {
            last - s.ts(rows.end - 2)
        } else {
            0
        };
        let end = last.saturating_add(step);
        b = Some(b.map_or((first, end), |(a, z)| (a.min(first), z.max(end))));
    }
    b
}
