//! `tracescope stats`: counts of a trace, as a table or one JSON object.

use anyhow::Result;
use serde_json::{json, Map, Value};
use tracescope_model::Trace;

pub fn stats_json(trace: &Trace) -> Value {
    let s = trace.stats();
    let phases: Map<String, Value> = s
        .phases
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let diagnostics: Vec<Value> = trace
        .diagnostics
        .sorted()
        .into_iter()
        // Of several files, the offset within the file the example names.
        .map(|d| json!({"kind": d.kind.as_str(), "severity": d.kind.severity().as_str(), "count": d.count, "offset": trace.text_at(d.offset).1, "example": d.example}))
        .collect();
    json!({
        "format": s.format,
        "bytes": s.bytes,
        "events": s.events,
        "phases": phases,
        "processes": s.processes,
        "threads": s.threads,
        "slices": s.slices,
        "instants": s.instants,
        "async_slices": s.async_slices,
        "flows": s.flows,
        "counter_series": s.counter_series,
        "counter_samples": s.counter_samples,
        "objects": s.objects,
        "object_snapshots": s.object_snapshots,
        "profiles": s.profiles,
        "samples": s.samples,
        "metadata_events": s.metadata_events,
        "other_events": s.other_events,
        "start_ns": s.start_ns,
        "end_ns": s.end_ns,
        "diagnostics": diagnostics,
        "load_ms": (s.load_ms * 1000.0).round() / 1000.0,
        "load_phases": trace.info.load_phases.iter().map(|(k, v)| (k.to_string(), json!((v * 1000.0).round() / 1000.0))).collect::<Map<String, Value>>(),
    })
}

pub fn run(inputs: &crate::load::Inputs, as_json: bool) -> Result<()> {
    let trace = inputs.load_until_exit()?;
    let v = stats_json(trace);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let Value::Object(m) = &v else {
        unreachable!("stats is an object")
    };
    println!("{}", inputs.heading());
    for (k, val) in m {
        match (k.as_str(), val) {
            ("phases", Value::Object(p)) => {
                let list: Vec<String> = p
                    .iter()
                    .map(|(ph, n)| format!("{}={n}", if ph.is_empty() { "(none)" } else { ph }))
                    .collect();
                println!("  {:<17} {}", "phases", list.join(" "));
            }
            ("diagnostics", Value::Array(d)) => {
                println!(
                    "  {:<17} {}",
                    "diagnostics",
                    if d.is_empty() {
                        "none".to_string()
                    } else {
                        d.len().to_string()
                    }
                );
                for e in d {
                    println!(
                        "    {:<7} {:<24} x{:<8} at byte {:<10} {}",
                        e["severity"].as_str().unwrap_or(""),
                        e["kind"].as_str().unwrap_or(""),
                        e["count"],
                        e["offset"],
                        e["example"].as_str().unwrap_or("")
                    );
                }
            }
            (_, Value::Null) => println!("  {k:<17} -"),
            (_, val) => println!(
                "  {k:<17} {}",
                val.as_str().map_or_else(|| val.to_string(), str::to_string)
            ),
        }
    }
    Ok(())
}
