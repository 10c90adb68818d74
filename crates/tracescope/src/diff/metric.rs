//! What is compared per group: eight numbers, each a [`Metric`].

/// One of a group's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Metric {
    /// Slices (or samples, for CPU-profile functions).
    Count,
    /// Sum of durations.
    Total,
    /// Sum of self times (durations minus children's).
    #[value(name = "self")]
    SelfTime,
    /// Average duration.
    Mean,
    /// Median duration (nearest rank).
    P50,
    /// 95th percentile of the durations (nearest rank).
    P95,
    /// 99th percentile of the durations (nearest rank).
    P99,
    /// Longest duration.
    Max,
}

pub const METRICS: [Metric; 8] = [
    Metric::Count,
    Metric::Total,
    Metric::SelfTime,
    Metric::Mean,
    Metric::P50,
    Metric::P95,
    Metric::P99,
    Metric::Max,
];

/// A group's numbers in one run, or a side's per-run means, by [`Metric::index`];
/// `None` where not defined (percentiles of CPU-profile functions).
pub type Stats = [Option<f64>; 8];

impl Metric {
    pub fn index(self) -> usize {
        self as usize
    }

    /// As rules and tables name it.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Count => "count",
            Metric::Total => "total",
            Metric::SelfTime => "self",
            Metric::Mean => "mean",
            Metric::P50 => "p50",
            Metric::P95 => "p95",
            Metric::P99 => "p99",
            Metric::Max => "max",
        }
    }

    /// Its key in the JSON output.
    pub fn json_key(self) -> &'static str {
        match self {
            Metric::Count => "count",
            Metric::Total => "total_ns",
            Metric::SelfTime => "self_ns",
            Metric::Mean => "mean_ns",
            Metric::P50 => "p50_ns",
            Metric::P95 => "p95_ns",
            Metric::P99 => "p99_ns",
            Metric::Max => "max_ns",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        METRICS.into_iter().find(|m| m.name() == s)
    }

    /// A time in ns (every metric but the count).
    pub fn is_time(self) -> bool {
        self != Metric::Count
    }

    /// Summed over a run: a run without the group adds zero (count, total, self);
    /// the others describe the group's slices and are undefined without them.
    pub fn is_sum(self) -> bool {
        matches!(self, Metric::Count | Metric::Total | Metric::SelfTime)
    }
}
