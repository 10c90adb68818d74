//! `tracescope summary`: where the time went, as the viewer's range table: slices
//! grouped by name, thread or category (or by patterns gathering several keys)
//! with count, total, self, busy time, average, percentiles, minimum and maximum,
//! thread time; filtered by name, category and thread; counters with
//! min/max/average.

use anyhow::{Context, Result};
use regex::Regex;
use serde_json::{json, Value};
use tracescope_model::analysis::{
    counter_stats, summarize, time_bounds, GroupBy, Selection, SliceFilter, SummaryQuery,
};
use tracescope_model::Trace;

use crate::units::{format_ns, parse_range};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum By {
    Name,
    Thread,
    Category,
}

impl From<By> for GroupBy {
    fn from(b: By) -> GroupBy {
        match b {
            By::Name => GroupBy::Name,
            By::Thread => GroupBy::Thread,
            By::Category => GroupBy::Category,
        }
    }
}

pub struct Options<'a> {
    pub top: usize,
    pub by: By,
    pub range: Option<&'a str>,
    pub json: bool,
    /// Regexes slices must match (name, category, thread label).
    pub name: Option<&'a str>,
    pub cat: Option<&'a str>,
    pub thread: Option<&'a str>,
    /// Patterns that gather the keys they match into one group each.
    pub groups: &'a [String],
}

/// Keys longer than this are shortened in the middle in the table.
const KEY_WIDTH: usize = 60;

fn regex(flag: &str, re: Option<&str>) -> Result<Option<Regex>> {
    re.map(|r| Regex::new(r).with_context(|| format!("{flag} {r:?} is not a regex")))
        .transpose()
}

pub fn run(inputs: &crate::load::Inputs, o: &Options) -> Result<()> {
    let trace = inputs.load_until_exit()?;
    let v = summary_json(trace, o)?;
    if o.json {
        println!("{v}");
    } else {
        print!("{}", human(&v, o.range.is_some()));
    }
    Ok(())
}

/// The summary as JSON (also the source of the human table).
pub fn summary_json(trace: &Trace, o: &Options) -> Result<Value> {
    let start = time_bounds(trace).map_or(0, |b| b.0);
    let sel = match o.range {
        Some(r) => {
            let (t0, t1) = parse_range(r, start)?;
            Selection::range(t0, t1)
        }
        None => Selection::all(),
    };
    let by: GroupBy = o.by.into();
    let filter = SliceFilter::new(
        trace,
        regex("--name", o.name)?.as_ref(),
        regex("--cat", o.cat)?.as_ref(),
        regex("--thread", o.thread)?.as_ref(),
    );
    let groups = o
        .groups
        .iter()
        .map(|g| regex("--group", Some(g)).map(Option::unwrap))
        .collect::<Result<Vec<_>>>()?;
    let top = if o.top == 0 { usize::MAX } else { o.top };
    let sum = summarize(
        trace,
        &sel,
        &SummaryQuery {
            by,
            filter: &filter,
            groups: &groups,
            percentiles_of: top,
        },
    );
    let st = &sum.stats;
    let groups: Vec<Value> = st
        .groups
        .iter()
        .zip(&sum.busy)
        .zip(&sum.percentiles)
        .map(|((g, busy), p)| {
            json!({
                "key": st.label(trace, g.key), "count": g.count, "total_ns": g.total,
                "self_ns": g.self_ns, "busy_ns": busy, "in_range_ns": g.in_range,
                "thread_ns": g.thread_total, "avg_ns": g.avg(), "p50_ns": p[0],
                "p95_ns": p[1], "p99_ns": p[2], "min_ns": g.min, "max_ns": g.max,
                "did_not_finish": g.did_not_finish,
            })
        })
        .collect();
    let series = &trace.tables.counters.series;
    let counters: Vec<Value> = counter_stats(trace, &sel)
        .iter()
        .map(|c| {
            let s = &series[c.series as usize];
            json!({
                "name": trace.str(s.counter), "series": trace.str(s.series),
                "pid": trace.pid_text(trace.process(s.process).pid),
                "count": c.count, "min": c.min, "max": c.max, "avg": c.avg,
                "first": c.first, "last": c.last, "delta": c.delta(),
            })
        })
        .collect();
    let (t0, t1) = sel.bounds(trace);
    Ok(json!({
        "t0_ns": t0, "t1_ns": t1, "by": by.as_str(), "slices": st.slices,
        "groups_total": st.groups.len(), "groups": groups, "counters": counters,
    }))
}

/// Aligned columns: the key left, numbers right.
fn human(v: &Value, ranged: bool) -> String {
    let ns = |x: &Value| x.as_i64().map_or("-".to_string(), format_ns);
    let mut head = vec![v["by"].as_str().unwrap_or("name").to_string()];
    let cols = [
        "count",
        "total",
        "self",
        "busy",
        "avg",
        "p50",
        "p95",
        "p99",
        "min",
        "max",
        "thread time",
        "unfinished",
    ];
    head.extend(cols.iter().map(|c| c.to_string()));
    if ranged {
        head.push("in range".into());
    }
    let mut rows = vec![head];
    for g in v["groups"].as_array().into_iter().flatten() {
        let mut r = vec![
            clip(g["key"].as_str().unwrap_or(""), KEY_WIDTH),
            g["count"].to_string(),
            ns(&g["total_ns"]),
            ns(&g["self_ns"]),
            ns(&g["busy_ns"]),
            ns(&g["avg_ns"]),
            ns(&g["p50_ns"]),
            ns(&g["p95_ns"]),
            ns(&g["p99_ns"]),
            ns(&g["min_ns"]),
            ns(&g["max_ns"]),
            ns(&g["thread_ns"]),
            g["did_not_finish"].to_string(),
        ];
        if ranged {
            r.push(ns(&g["in_range_ns"]));
        }
        rows.push(r);
    }
    let (t0, t1) = (
        v["t0_ns"].as_i64().unwrap_or(0),
        v["t1_ns"].as_i64().unwrap_or(0),
    );
    let mut out = format!(
        "{} slices over {} ({t0} to {t1} ns), {} groups by {}\n",
        v["slices"],
        format_ns(t1.saturating_sub(t0)),
        v["groups_total"],
        v["by"].as_str().unwrap_or("")
    );
    out += &table(&rows);
    let counters = v["counters"].as_array().map_or(&[][..], |c| c.as_slice());
    if !counters.is_empty() {
        let mut rows = vec![[
            "counter", "pid", "samples", "min", "max", "avg", "first", "last",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
        for c in counters {
            let name = match c["series"].as_str() {
                Some(s) if !s.is_empty() => format!("{}.{s}", c["name"].as_str().unwrap_or("")),
                _ => c["name"].as_str().unwrap_or("").to_string(),
            };
            let num = |k: &str| c[k].as_f64().map_or("-".into(), |x| format!("{x}"));
            rows.push(vec![
                name,
                c["pid"].as_str().unwrap_or("").to_string(),
                c["count"].to_string(),
                num("min"),
                num("max"),
                format!("{:.6}", c["avg"].as_f64().unwrap_or(0.0))
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string(),
                num("first"),
                num("last"),
            ]);
        }
        out.push('\n');
        out += &table(&rows);
    }
    out
}

/// `s` in at most `width` characters: a long one loses its middle to "…" (both
/// ends tell names apart: `Namespace::Class::Method`).
fn clip(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        for (c, cell) in r.iter().enumerate() {
            let pad = width[c] - cell.chars().count();
            if c == 0 {
                out += cell;
                out.extend(std::iter::repeat_n(' ', pad));
            } else {
                out += "  ";
                out.extend(std::iter::repeat_n(' ', pad));
                out += cell;
            }
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clip;

    #[test]
    fn long_keys_lose_their_middle() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("0123456789", 10), "0123456789");
        assert_eq!(clip("0123456789ab", 10), "0123…789ab");
        assert_eq!(clip("ééééééééééé", 5), "éé…éé");
    }
}
