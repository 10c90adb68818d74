//! The comparison as one JSON object (every key is documented in the README,
//! "`tracescope diff`").

use serde_json::{json, Map, Value};

use super::compare::{CounterDiff, Diff, GroupDiff, SideStats};
use super::gate::Gate;
use super::metric::{Metric, Stats, METRICS};
use super::run::{CounterValues, RunInfo};

/// A metric's value: times in whole ns, counts as integers unless a mean over
/// runs has a fraction.
fn num(m: Metric, v: Option<f64>) -> Value {
    match v {
        None => Value::Null,
        Some(v) if m.is_time() || v.fract() == 0.0 => json!(v.round() as i64),
        Some(v) => json!(v),
    }
}

/// STATS: `{count, total_ns, self_ns, mean_ns, p50_ns, p95_ns, p99_ns, max_ns}`.
pub fn stats(s: Option<&Stats>) -> Value {
    match s {
        None => Value::Null,
        Some(s) => Value::Object(
            METRICS
                .iter()
                .map(|&m| (m.json_key().to_string(), num(m, s[m.index()])))
                .collect(),
        ),
    }
}

/// A float that is not NaN or infinite, else null.
fn float(v: Option<f64>) -> Value {
    v.filter(|v| v.is_finite())
        .map_or(Value::Null, |v| json!(v))
}

fn run_info(r: &RunInfo) -> Value {
    json!({
        "file": r.file, "events": r.events, "slices": r.slices, "samples": r.samples,
        "duration_ns": r.duration_ns,
    })
}

fn side_extras(obj: &mut Map<String, Value>, name: &str, s: &SideStats) {
    obj.insert(format!("{name}_sd"), stats(s.sd.as_ref()));
    obj.insert(
        format!("{name}_runs"),
        Value::Array(s.runs.iter().map(|r| stats(r.as_ref())).collect()),
    );
}

pub fn group(d: &Diff, g: &GroupDiff) -> Value {
    let mut obj = Map::new();
    obj.insert("key".into(), json!(g.key));
    obj.insert("change".into(), json!(g.change.as_str()));
    obj.insert("base".into(), stats(g.base.mean.as_ref()));
    obj.insert("new".into(), stats(g.new.mean.as_ref()));
    let metrics = |f: &dyn Fn(Metric) -> Value| -> Value {
        Value::Object(
            METRICS
                .iter()
                .map(|&m| (m.json_key().to_string(), f(m)))
                .collect(),
        )
    };
    obj.insert("delta".into(), metrics(&|m| num(m, g.delta(m))));
    obj.insert("ratio".into(), metrics(&|m| float(g.ratio(m))));
    obj.insert("significant".into(), json!(g.significant(d.sort)));
    obj.insert("p_value".into(), float(g.p[d.sort.index()]));
    if d.base.len() > 1 || d.new.len() > 1 {
        side_extras(&mut obj, "base", &g.base);
        side_extras(&mut obj, "new", &g.new);
        obj.insert("p_values".into(), metrics(&|m| float(g.p[m.index()])));
    }
    Value::Object(obj)
}

fn counter_values(c: Option<CounterValues>) -> Value {
    c.map_or(Value::Null, |c| {
        json!({"min": float(Some(c.min)), "max": float(Some(c.max)), "avg": float(Some(c.avg))})
    })
}

fn counter(c: &CounterDiff) -> Value {
    let delta = |f: fn(&CounterValues) -> f64| match (c.base, c.new) {
        (Some(b), Some(n)) => float(Some(f(&n) - f(&b))),
        _ => Value::Null,
    };
    json!({
        "key": c.key, "base": counter_values(c.base), "new": counter_values(c.new),
        "delta": {"min": delta(|v| v.min), "max": delta(|v| v.max), "avg": delta(|v| v.avg)},
    })
}

fn gate(d: &Diff, g: &Gate) -> Value {
    let m = g.rule.metric;
    let groups: Vec<Value> = g
        .failed
        .iter()
        .filter_map(|k| d.groups.iter().find(|x| &x.key == k))
        .map(|x| {
            json!({
                "key": x.key, "base": num(m, x.base.get(m)), "new": num(m, x.new.get(m)),
                "delta": num(m, x.delta(m)), "ratio": float(x.ratio(m)),
            })
        })
        .collect();
    json!({
        "rule": g.rule.text, "key": g.rule.key, "metric": m.name(),
        "failed": !g.failed.is_empty(), "groups": groups,
    })
}

/// The whole answer; `top` groups (every group when 0).
pub fn diff(d: &Diff, gates: &[Gate], top: usize) -> Value {
    let top = if top == 0 { usize::MAX } else { top };
    json!({
        "by": d.by.as_str(),
        "sort": d.sort.name(),
        "base": d.base.iter().map(run_info).collect::<Vec<_>>(),
        "new": d.new.iter().map(run_info).collect::<Vec<_>>(),
        "significance": if d.tested() { json!("welch-holm") } else { Value::Null },
        "groups_total": d.groups.len(),
        "changes": Value::Object(d.counts().iter().map(|(c, n)| (c.as_str().to_string(), json!(n))).collect()),
        "groups": d.groups.iter().take(top).map(|g| group(d, g)).collect::<Vec<_>>(),
        "counters": d.counters.iter().map(counter).collect::<Vec<_>>(),
        "gates": gates.iter().map(|g| gate(d, g)).collect::<Vec<_>>(),
        "failed": gates.iter().any(|g| !g.failed.is_empty()),
    })
}
