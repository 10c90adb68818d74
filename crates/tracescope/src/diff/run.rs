//! One run: a loaded trace reduced to what `diff` compares, its groups by key and
//! its counter series by key. Keys are names that match across runs (a thread is
//! `process/thread`, see `tracescope_model::analysis::matching`), never raw ids.

use rustc_hash::FxHashMap;
use tracescope_model::analysis::matching::{process_keys, thread_keys_in};
use tracescope_model::analysis::{counter_stats, Selection};
use tracescope_model::Trace;

use super::groups::group_stats;
use super::metric::Stats;

/// What groups are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// Slices by name.
    Name,
    /// Slices by thread (`process/thread`).
    Thread,
    /// Slices by category.
    Category,
    /// CPU samples by function (self and total); slices as stacks on threads
    /// without samples.
    Function,
}

impl By {
    pub fn as_str(self) -> &'static str {
        match self {
            By::Name => "name",
            By::Thread => "thread",
            By::Category => "category",
            By::Function => "function",
        }
    }

    pub fn parse(s: &str) -> Option<By> {
        [By::Name, By::Thread, By::Category, By::Function]
            .into_iter()
            .find(|b| b.as_str() == s)
    }
}

/// What a run's file holds, as the output lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub file: String,
    pub events: u64,
    pub slices: u64,
    pub samples: u64,
    /// From the first event to the last end; 0 for a trace without times.
    pub duration_ns: i64,
}

/// A counter series' minimum, maximum and time-weighted average.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterValues {
    pub min: f64,
    pub max: f64,
    pub avg: f64,
}

/// One run's numbers.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub info: Option<RunInfo>,
    pub groups: FxHashMap<String, Stats>,
    pub counters: FxHashMap<String, CounterValues>,
}

impl Run {
    /// The numbers of `trace` (read from `file`) grouped `by`.
    pub fn of(trace: &Trace, by: By, file: String) -> Run {
        let info = RunInfo {
            file,
            events: trace.info.events,
            slices: trace.tables.slices.len() as u64,
            samples: trace.tables.samples.len() as u64,
            duration_ns: match (trace.info.start_ns, trace.info.end_ns) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => 0,
            },
        };
        let processes = process_keys(trace);
        let threads = thread_keys_in(trace, &processes);
        Run {
            info: Some(info),
            groups: group_stats(trace, by, &threads),
            counters: counters(trace, &processes),
        }
    }
}

/// Counter series by `process/counter.series` (`process/counter` when the series
/// has no name), as `summary` names them.
fn counters(trace: &Trace, processes: &[String]) -> FxHashMap<String, CounterValues> {
    let series = &trace.tables.counters.series;
    counter_stats(trace, &Selection::all())
        .into_iter()
        .map(|c| {
            let s = &series[c.series as usize];
            let mut key = format!("{}/{}", processes[s.process.index()], trace.str(s.counter));
            if !s.series.is_none() && !trace.str(s.series).is_empty() {
                key.push('.');
                key.push_str(trace.str(s.series));
            }
            let v = CounterValues {
                min: c.min,
                max: c.max,
                avg: c.avg,
            };
            (key, v)
        })
        .collect()
}
