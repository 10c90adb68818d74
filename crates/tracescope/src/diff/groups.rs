//! A run's groups and their numbers: slices by name, thread or category (count,
//! total, self, mean, percentiles, max), or functions.

use rustc_hash::FxHashMap;
use tracescope_model::analysis::{
    summarize, GroupBy, GroupKey, Selection, SliceFilter, SummaryQuery,
};
use tracescope_model::Trace;

use super::metric::Stats;
use super::run::By;

/// Every group of the trace by its key.
pub fn group_stats(trace: &Trace, by: By, threads: &[String]) -> FxHashMap<String, Stats> {
    let gb = match by {
        By::Name | By::Function => GroupBy::Name,
        By::Thread => GroupBy::Thread,
        By::Category => GroupBy::Category,
    };
    let filter = SliceFilter::default();
    let q = SummaryQuery {
        by: gb,
        filter: &filter,
        groups: &[],
        percentiles_of: usize::MAX,
    };
    let sum = summarize(trace, &Selection::all(), &q);
    let st = &sum.stats;
    st.groups
        .iter()
        .zip(&sum.percentiles)
        .map(|(g, p)| {
            let key = match g.key {
                GroupKey::Str(s) => trace.str(s).to_string(),
                GroupKey::Thread(t) => threads[t.index()].clone(),
                GroupKey::Pattern(_) => st.label(trace, g.key),
            };
            let n = |v: i64| Some(v as f64);
            let stats = [
                Some(g.count as f64),
                n(g.total),
                n(g.self_ns),
                n(g.avg()),
                n(p[0]),
                n(p[1]),
                n(p[2]),
                n(g.max),
            ];
            (key, stats)
        })
        .collect()
}
