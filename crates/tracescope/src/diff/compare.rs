//! Two sides of runs compared group by group: each side's per-run means and
//! standard deviations, the change, and with several runs a side whether it is
//! beyond run-to-run noise (Welch's t-test, Holm-corrected over the groups).

use std::collections::BTreeSet;

use tracescope_model::analysis::significance::{holm, welch};

use super::metric::{Metric, Stats, METRICS};
use super::run::{By, CounterValues, Run, RunInfo};

/// The p-value under which a change is significant (after Holm's correction).
pub const ALPHA: f64 = 0.05;

/// How a group changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Only in the new runs.
    Added,
    /// Only in the base runs.
    Removed,
    /// In both, with some number different.
    Changed,
    /// In both, every number equal.
    Same,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
            Change::Same => "same",
        }
    }
}

/// One side's view of a group over its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SideStats {
    /// Per-run means (`None` when no run has the group).
    pub mean: Option<Stats>,
    /// Sample standard deviation of each metric over the runs (`None` with fewer
    /// than two runs holding a value).
    pub sd: Option<Stats>,
    /// Each run's numbers (`None` for a run without the group).
    pub runs: Vec<Option<Stats>>,
}

impl SideStats {
    fn of(runs: &[Run], key: &str) -> SideStats {
        let runs: Vec<Option<Stats>> = runs.iter().map(|r| r.groups.get(key).copied()).collect();
        let mut mean = [None; 8];
        let mut sd = [None; 8];
        for m in METRICS {
            let v = values(&runs, m);
            if v.is_empty() {
                continue;
            }
            let mu = v.iter().sum::<f64>() / v.len() as f64;
            mean[m.index()] = Some(mu);
            if v.len() >= 2 {
                let var = v.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / (v.len() - 1) as f64;
                sd[m.index()] = Some(var.sqrt());
            }
        }
        let present = runs.iter().any(Option::is_some);
        SideStats {
            mean: present.then_some(mean),
            sd: (present && runs.len() >= 2).then_some(sd),
            runs,
        }
    }

    pub fn get(&self, m: Metric) -> Option<f64> {
        self.mean.and_then(|s| s[m.index()])
    }
}

/// The values of metric `m` over the runs: a run without the group counts as zero
/// for sums (count, total, self) and is left out for the others.
fn values(runs: &[Option<Stats>], m: Metric) -> Vec<f64> {
    runs.iter()
        .filter_map(|r| match r {
            Some(s) => s[m.index()],
            None if m.is_sum() => Some(0.0),
            None => None,
        })
        .collect()
}

/// One group compared.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupDiff {
    pub key: String,
    pub base: SideStats,
    pub new: SideStats,
    pub change: Change,
    /// Holm-adjusted p-value of each metric's change (`None`: not tested, with
    /// fewer than two runs a side or no values).
    pub p: [Option<f64>; 8],
}

impl GroupDiff {
    /// New minus base: an absent side counts as zero for sums; `None` when a side
    /// has no value otherwise.
    pub fn delta(&self, m: Metric) -> Option<f64> {
        let side = |s: &SideStats| match s.get(m) {
            None if m.is_sum() => Some(0.0),
            v => v,
        };
        Some(side(&self.new)? - side(&self.base)?)
    }

    /// New over base, when both have a value and the base's is not zero.
    pub fn ratio(&self, m: Metric) -> Option<f64> {
        match (self.base.get(m), self.new.get(m)) {
            (Some(b), Some(n)) if b != 0.0 => Some(n / b),
            _ => None,
        }
    }

    /// Whether the change of `m` is significant (`None` when it was not tested).
    pub fn significant(&self, m: Metric) -> Option<bool> {
        self.p[m.index()].map(|p| p < ALPHA)
    }
}

/// A counter series compared (per-run means of min, max and average).
#[derive(Clone, Debug, PartialEq)]
pub struct CounterDiff {
    pub key: String,
    pub base: Option<CounterValues>,
    pub new: Option<CounterValues>,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    pub by: By,
    /// What groups are sorted by: the largest absolute change of it first.
    pub sort: Metric,
    pub base: Vec<RunInfo>,
    pub new: Vec<RunInfo>,
    /// Every group, sorted.
    pub groups: Vec<GroupDiff>,
    /// Every counter series, by key.
    pub counters: Vec<CounterDiff>,
}

impl Diff {
    /// Whether significance was tested: at least two runs on each side.
    pub fn tested(&self) -> bool {
        self.base.len() >= 2 && self.new.len() >= 2
    }

    /// Groups per kind of change, in [`Change`] order.
    pub fn counts(&self) -> [(Change, usize); 4] {
        [
            Change::Changed,
            Change::Added,
            Change::Removed,
            Change::Same,
        ]
        .map(|c| (c, self.groups.iter().filter(|g| g.change == c).count()))
    }
}

/// Compares the runs of two sides.
pub fn compare(base: &[Run], new: &[Run], by: By, sort: Metric) -> Diff {
    let keys: BTreeSet<&str> = base
        .iter()
        .chain(new)
        .flat_map(|r| r.groups.keys().map(String::as_str))
        .collect();
    let tested = base.len() >= 2 && new.len() >= 2;
    let mut groups: Vec<GroupDiff> = keys
        .into_iter()
        .map(|key| {
            let (b, n) = (SideStats::of(base, key), SideStats::of(new, key));
            let change = match (b.mean, n.mean) {
                (None, _) => Change::Added,
                (_, None) => Change::Removed,
                (Some(x), Some(y)) if x == y => Change::Same,
                _ => Change::Changed,
            };
            let p = METRICS.map(|m| {
                if !tested {
                    return None;
                }
                welch(&values(&b.runs, m), &values(&n.runs, m)).map(|w| w.p)
            });
            GroupDiff {
                key: key.to_string(),
                base: b,
                new: n,
                change,
                p,
            }
        })
        .collect();
    // Corrected per metric over the groups tested.
    for m in METRICS {
        let raw: Vec<Option<f64>> = groups.iter().map(|g| g.p[m.index()]).collect();
        for (g, adj) in groups.iter_mut().zip(holm(&raw)) {
            g.p[m.index()] = adj;
        }
    }
    // Largest change first; equal changes (unchanged groups) by the larger of the
    // two sides, then by key.
    let size = |g: &GroupDiff| g.delta(sort).map_or(0.0, f64::abs);
    let larger = |g: &GroupDiff| {
        let side = |s: &SideStats| s.get(sort).unwrap_or(0.0);
        side(&g.base).max(side(&g.new))
    };
    groups.sort_by(|a, b| {
        size(b)
            .total_cmp(&size(a))
            .then_with(|| larger(b).total_cmp(&larger(a)))
            .then_with(|| a.key.cmp(&b.key))
    });
    Diff {
        by,
        sort,
        base: base.iter().filter_map(|r| r.info.clone()).collect(),
        new: new.iter().filter_map(|r| r.info.clone()).collect(),
        groups,
        counters: counters(base, new),
    }
}

fn counters(base: &[Run], new: &[Run]) -> Vec<CounterDiff> {
    let keys: BTreeSet<&str> = base
        .iter()
        .chain(new)
        .flat_map(|r| r.counters.keys().map(String::as_str))
        .collect();
    let mean = |runs: &[Run], key: &str| {
        let v: Vec<CounterValues> = runs
            .iter()
            .filter_map(|r| r.counters.get(key).copied())
            .collect();
        let n = v.len() as f64;
        (!v.is_empty()).then(|| CounterValues {
            min: v.iter().map(|c| c.min).sum::<f64>() / n,
            max: v.iter().map(|c| c.max).sum::<f64>() / n,
            avg: v.iter().map(|c| c.avg).sum::<f64>() / n,
        })
    };
    keys.into_iter()
        .map(|key| CounterDiff {
            key: key.to_string(),
            base: mean(base, key),
            new: mean(new, key),
        })
        .collect()
}
