//! Whole-trace counts: what `tracescope stats` reports.

use crate::trace::Trace;

/// Counts of a loaded trace (see the README for each field's meaning).
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub format: String,
    pub bytes: u64,
    pub events: u64,
    pub phases: Vec<(String, u64)>,
    pub processes: usize,
    pub threads: usize,
    pub slices: usize,
    pub instants: usize,
    pub async_slices: usize,
    pub flows: usize,
    pub counter_series: usize,
    pub counter_samples: usize,
    pub objects: usize,
    pub object_snapshots: usize,
    pub profiles: usize,
    pub samples: usize,
    pub metadata_events: usize,
    pub other_events: usize,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub load_ms: f64,
}

impl Trace {
    pub fn stats(&self) -> Stats {
        let t = &self.tables;
        let mut phases = self.info.phases.clone();
        phases.sort();
        Stats {
            format: self.info.format.clone(),
            bytes: self.info.bytes,
            events: self.info.events,
            phases,
            processes: t.processes.len(),
            threads: t.threads.len(),
            slices: t.slices.len(),
            instants: t.instants.len(),
            async_slices: t.async_slices.len(),
            flows: t.flows.len(),
            counter_series: t.counters.series.len(),
            counter_samples: t.counters.ts.len(),
            objects: t.objects.len(),
            object_snapshots: t.snapshots.len(),
            profiles: t.profiles.len(),
            samples: t.samples.len(),
            metadata_events: t.metadata.len(),
            other_events: t.other.len(),
            start_ns: self.info.start_ns,
            end_ns: self.info.end_ns,
            load_ms: self.info.load_ms,
        }
    }
}
