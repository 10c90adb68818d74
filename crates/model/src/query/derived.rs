//! Counter series the viewer derives from instants whose args carry counts, so they
//! can be drawn as counters (the model's counter table keeps only `C` events, as
//! the spec reads them):
//!
//! - Chrome's `UpdateCounters` (`args.data`: `documents`, `nodes`,
//!   `jsEventListeners`, `jsHeapSizeUsed`, ...): one series per numeric key, per
//!   process, named `<key> (UpdateCounters)`;
//! - PyTorch's `[memory]` instants (`Total Allocated`, `Total Reserved`, with
//!   `Device Type` and `Device Id`): one series per value and device, per process,
//!   named `[memory] Total Allocated (CPU)` or `[memory] Total Allocated (cuda:0)`.
//!
//! A sample is taken at each instant's time; instants whose args hold no number
//! for a key add nothing to that series.

use rustc_hash::FxHashMap;
use tracescope_format::json::value::Value;

use super::lod::MinMax;
use crate::tables::{ProcessId, Scope};
use crate::trace::Trace;

/// The instant names that carry counters.
pub const UPDATE_COUNTERS: &str = "UpdateCounters";
pub const PYTORCH_MEMORY: &str = "[memory]";

/// One derived series: its samples in time order.
#[derive(Debug)]
pub struct DerivedSeries {
    pub process: ProcessId,
    /// The instant name it comes from (`UpdateCounters`, `[memory]`).
    pub source: &'static str,
    pub name: String,
    pub ts: Vec<i64>,
    pub value: Vec<f64>,
    pub min_max: MinMax,
}

/// Every derived series of a trace, by process then name.
#[derive(Debug, Default)]
pub struct DerivedCounters {
    pub series: Vec<DerivedSeries>,
}

/// PyTorch's device types (c10::DeviceType) by number, as its profiler writes them.
fn device_label(kind: i64, id: i64) -> String {
    let name = match kind {
        0 => return "CPU".to_string(),
        1 => "cuda",
        2 => "mkldnn",
        3 => "opengl",
        4 => "opencl",
        5 => "ideep",
        6 => "hip",
        7 => "fpga",
        8 => "maia",
        9 => "xla",
        10 => "vulkan",
        11 => "metal",
        12 => "xpu",
        13 => "mps",
        14 => "meta",
        15 => "hpu",
        16 => "ve",
        17 => "lazy",
        18 => "ipu",
        19 => "mtia",
        20 => "privateuseone",
        _ => return format!("device {kind}:{id}"),
    };
    if id >= 0 {
        format!("{name}:{id}")
    } else {
        name.to_string()
    }
}

/// The (series name, value) pairs one instant's args give.
fn samples(source: &'static str, args: &Value<'_>) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if source == UPDATE_COUNTERS {
        if let Some(data) = args.get("data").and_then(|d| d.as_object()) {
            for (k, v) in data {
                if let Some(x) = v.as_f64().filter(|x| x.is_finite()) {
                    out.push((format!("{k} ({UPDATE_COUNTERS})"), x));
                }
            }
        }
    } else {
        let num = |k: &str| args.get(k).and_then(|v| v.as_i64());
        let device = device_label(
            num("Device Type").unwrap_or(0),
            num("Device Id").unwrap_or(-1),
        );
        for key in ["Total Allocated", "Total Reserved"] {
            if let Some(x) = args
                .get(key)
                .and_then(|v| v.as_f64())
                .filter(|x| x.is_finite())
            {
                out.push((format!("{PYTORCH_MEMORY} {key} ({device})"), x));
            }
        }
    }
    out
}

impl DerivedCounters {
    pub fn build(trace: &Trace) -> DerivedCounters {
        let t = &trace.tables;
        let ins = &t.instants;
        let sources: Vec<_> = [UPDATE_COUNTERS, PYTORCH_MEMORY]
            .into_iter()
            .filter_map(|n| t.strings.find(n).map(|id| (id, n)))
            .collect();
        if sources.is_empty() {
            return DerivedCounters::default();
        }
        let mut by_key: FxHashMap<(ProcessId, String), usize> = FxHashMap::default();
        let mut series: Vec<DerivedSeries> = Vec::new();
        // The instants table is in time order, so each series is too.
        for i in 0..ins.len() {
            let Some(&(_, source)) = sources.iter().find(|(id, _)| *id == ins.name[i]) else {
                continue;
            };
            let process = ins.process[i];
            if ins.scope[i] == Scope::Global {
                continue;
            }
            let text = trace.raw(ins.args[i]);
            let Ok(args) = Value::parse(&text) else {
                continue;
            };
            for (name, v) in samples(source, &args) {
                let k = *by_key.entry((process, name.clone())).or_insert_with(|| {
                    series.push(DerivedSeries {
                        process,
                        source,
                        name,
                        ts: Vec::new(),
                        value: Vec::new(),
                        min_max: MinMax::default(),
                    });
                    series.len() - 1
                });
                series[k].ts.push(ins.ts[i]);
                series[k].value.push(v);
            }
        }
        series.sort_by(|a, b| (a.process, &a.name).cmp(&(b.process, &b.name)));
        for s in &mut series {
            s.min_max = MinMax::build(&s.value);
        }
        DerivedCounters { series }
    }

    pub fn heap_bytes(&self) -> usize {
        self.series
            .iter()
            .map(|s| s.ts.capacity() * 16 + s.name.capacity() + s.min_max.heap_bytes())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;

    fn trace(json: &str) -> Trace {
        Trace::from_json(Box::new(json.to_string()), 0, &LoadOptions::default()).unwrap()
    }

    #[test]
    fn update_counters_give_one_series_per_key_and_process() {
        let t = trace(
            r#"[{"ph":"I","s":"t","name":"UpdateCounters","pid":1,"tid":1,"ts":1,"args":{"data":{"documents":1,"nodes":20,"jsHeapSizeUsed":1000}}},
               {"ph":"I","s":"t","name":"UpdateCounters","pid":1,"tid":1,"ts":3,"args":{"data":{"documents":2,"nodes":25,"jsHeapSizeUsed":1500.5,"note":"x"}}},
               {"ph":"I","s":"t","name":"UpdateCounters","pid":2,"tid":5,"ts":2,"args":{"data":{"nodes":7}}},
               {"ph":"I","s":"g","name":"UpdateCounters","pid":2,"tid":5,"ts":2,"args":{"data":{"nodes":9}}},
               {"ph":"I","s":"t","name":"UpdateCounters","pid":2,"tid":5,"ts":4,"args":"broken"}]"#,
        );
        let d = DerivedCounters::build(&t);
        let got: Vec<_> = d
            .series
            .iter()
            .map(|s| {
                (
                    t.process_label(s.process),
                    s.name.as_str(),
                    s.ts.clone(),
                    s.value.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Process 1".into(),
                    "documents (UpdateCounters)",
                    vec![1000, 3000],
                    vec![1.0, 2.0]
                ),
                (
                    "Process 1".into(),
                    "jsHeapSizeUsed (UpdateCounters)",
                    vec![1000, 3000],
                    vec![1000.0, 1500.5]
                ),
                (
                    "Process 1".into(),
                    "nodes (UpdateCounters)",
                    vec![1000, 3000],
                    vec![20.0, 25.0]
                ),
                (
                    "Process 2".into(),
                    "nodes (UpdateCounters)",
                    vec![2000],
                    vec![7.0]
                ),
            ]
        );
        assert_eq!(
            (d.series[1].min_max.min, d.series[1].min_max.max),
            (1000.0, 1500.5)
        );
        assert!(d.series.iter().all(|s| s.source == UPDATE_COUNTERS));
    }

    #[test]
    fn pytorch_memory_per_device() {
        let t = trace(
            r#"[{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":7,"ts":10,"args":{"Device Type":0,"Device Id":-1,"Addr":1,"Bytes":512,"Total Allocated":512,"Total Reserved":0}},
               {"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":7,"ts":11,"args":{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":4096,"Total Allocated":4096,"Total Reserved":2097152}},
               {"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":7,"ts":12,"args":{"Device Type":0,"Device Id":-1,"Addr":1,"Bytes":-512,"Total Allocated":0,"Total Reserved":0}}]"#,
        );
        let d = DerivedCounters::build(&t);
        let got: Vec<_> = d
            .series
            .iter()
            .map(|s| (s.name.as_str(), s.ts.clone(), s.value.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "[memory] Total Allocated (CPU)",
                    vec![10_000, 12_000],
                    vec![512.0, 0.0]
                ),
                (
                    "[memory] Total Allocated (cuda:0)",
                    vec![11_000],
                    vec![4096.0]
                ),
                (
                    "[memory] Total Reserved (CPU)",
                    vec![10_000, 12_000],
                    vec![0.0, 0.0]
                ),
                (
                    "[memory] Total Reserved (cuda:0)",
                    vec![11_000],
                    vec![2_097_152.0]
                ),
            ]
        );
        assert_eq!(device_label(13, 0), "mps:0");
        assert_eq!(device_label(99, 2), "device 99:2");
    }

    #[test]
    fn no_such_instants_no_series() {
        let t = trace(
            r#"[{"ph":"I","s":"t","name":"Other","pid":1,"tid":1,"ts":1,"args":{"data":{"nodes":1}}}]"#,
        );
        assert!(DerivedCounters::build(&t).series.is_empty());
    }
}
