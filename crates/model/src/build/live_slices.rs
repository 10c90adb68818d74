//! The slice step of a followed file (`view --follow`), carried from one version
//! to the next.
//!
//! Each thread keeps its duration records and the state of its `B`/`E` matching
//! (a fold over the records in time order). When every record appended to a
//! thread comes at or after the latest one fed (the usual case: a program writes
//! its events as they happen), only the new records are sorted and matched; a
//! record that lands earlier makes that thread match all its records again. The
//! slices closed so far are kept in tree order, so a version sorts only its
//! still open ones. The result equals the slice step over all records at once:
//! the tree placement and the rows are then made as on a first load.

use rayon::prelude::*;
use tracescope_format::Diagnostics;

use super::records::{DurRecs, NO_TIME};
use super::slice_rows::TimeSpans;
use super::slices::{
    emit, fill, has_thread_time, merge, opens, time_order, Built, Matcher, SortCheck,
};
use crate::tables::{SliceTable, ThreadId};

/// The duration records of a followed file, per thread, with their matching so far.
#[derive(Default)]
pub struct LiveSlices {
    /// Indexed by the registry's thread (before the per-version renumbering).
    threads: Vec<ThreadRecs>,
}

#[derive(Default)]
struct ThreadRecs {
    /// In file order, with their own side table.
    recs: DurRecs,
    /// Slices the records open (each `X`, `B` or `ui-nest` begin opens one).
    opens: usize,
    sorted: SortCheck,
    /// The first `fed` records went through `matcher`.
    fed: usize,
    /// The latest time among them.
    fed_until: i64,
    matcher: Matcher,
    /// The slices the matcher closed, in tree order.
    closed: Vec<Built>,
}

impl LiveSlices {
    /// Takes the duration records read from more of the file (parts in file order).
    pub fn add(&mut self, parts: Vec<DurRecs>) {
        for part in parts {
            for r in &part.recs {
                let t = r.thread.index();
                if self.threads.len() <= t {
                    self.threads.resize_with(t + 1, ThreadRecs::default);
                }
                let th = &mut self.threads[t];
                th.opens += usize::from(opens(r));
                th.sorted.note(r, &part.wide);
                th.recs.push_from(*r, &part.wide);
            }
        }
    }

    /// Marks the registry threads that have duration records.
    pub fn mark_used(&self, used: &mut [bool]) {
        for (t, th) in self.threads.iter().enumerate() {
            if !th.recs.is_empty() {
                if let Some(u) = used.get_mut(t) {
                    *u = true;
                }
            }
        }
    }

    /// The slice table of every record so far; `tmap` renumbers registry threads
    /// as the version's tables do, `thread_end` is indexed by the new numbers.
    pub fn build(
        &mut self,
        tmap: &[Option<ThreadId>],
        thread_end: &[i64],
        diags: &mut Diagnostics,
    ) -> SliceTable {
        self.threads.par_iter_mut().for_each(|th| th.catch_up());
        let mut work: Vec<(ThreadId, usize, &ThreadRecs)> = self
            .threads
            .iter()
            .enumerate()
            .filter(|(_, th)| !th.recs.is_empty())
            .filter_map(|(t, th)| Some((tmap.get(t).copied().flatten()?, th.opens, th)))
            .collect();
        work.sort_by_key(|w| w.0);
        let mut spans = TimeSpans::default();
        for w in &work {
            let recs = w.2.recs.view();
            for r in recs.iter() {
                spans.note(r.ts, r.tts, has_thread_time(r, recs.wide));
            }
        }
        fill(work, spans, diags, |thread, th, out, base, d, scratch| {
            th.sorted.report(thread, d);
            let end = thread_end.get(thread.index()).copied().unwrap_or(NO_TIME);
            let slices = th.matcher.finish_live(&th.closed, thread, end, d);
            emit(out, base, slices, th.recs.view(), scratch)
        })
    }
}

impl ThreadRecs {
    /// Feeds the matcher the records added since the last build.
    fn catch_up(&mut self) {
        let new = &self.recs.recs[self.fed..];
        let Some(new_max) = new.iter().map(|r| r.ts).max() else {
            return;
        };
        let from = if self.fed > 0 && new.iter().all(|r| r.ts >= self.fed_until) {
            self.fed
        } else {
            // The first records, or one lands before a record already matched:
            // match them all (again).
            self.matcher = Matcher::default();
            self.closed.clear();
            0
        };
        for i in time_order(&self.recs.recs, from) {
            self.matcher.feed(i as usize, self.recs.view());
        }
        self.fed_until = if self.fed == 0 {
            new_max
        } else {
            self.fed_until.max(new_max)
        };
        self.fed = self.recs.len();
        let closed = self.matcher.take_closed();
        self.closed = merge(&self.closed, closed);
    }
}
