//! The comparison as text: an aligned table for the terminal, or a Markdown table
//! to paste into a pull request comment. Both show the largest changes first, with
//! signed deltas and percentages, and mark the groups a gate failed on.

use super::compare::{Change, CounterDiff, Diff, GroupDiff};
use super::gate::Gate;
use super::metric::Metric;
use crate::units::format_ns;

/// A metric's value as tables show it: a duration in a fitting unit, a count
/// (with one decimal when it is a mean over runs), `-` when undefined.
pub fn value(m: Metric, v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if m.is_time() => format_ns(v.round() as i64),
        Some(v) if v.fract() == 0.0 => format!("{v}"),
        Some(v) => format!("{v:.1}"),
    }
}

/// A change with its sign: `+3.00 ms`, `-2`, `0`.
pub fn signed(m: Metric, d: Option<f64>) -> String {
    match d {
        None => "-".into(),
        Some(d) if d > 0.0 => format!("+{}", value(m, Some(d))),
        Some(d) => value(m, Some(d)),
    }
}

/// The change in percent of the base: `+30.0%`; `new` and `gone` for added and
/// removed groups; `-` without a base above zero.
pub fn percent(g: &GroupDiff, m: Metric) -> String {
    match g.change {
        Change::Added => "new".into(),
        Change::Removed => "gone".into(),
        _ => match g.ratio(m) {
            Some(r) => {
                let p = (r - 1.0) * 100.0;
                if p > 0.0 {
                    format!("+{p:.1}%")
                } else {
                    format!("{p:.1}%")
                }
            }
            None => "-".into(),
        },
    }
}

/// `base → new`, or the one value when both are equal.
fn pair(g: &GroupDiff, m: Metric) -> String {
    let (b, n) = (value(m, g.base.get(m)), value(m, g.new.get(m)));
    if b == n {
        b
    } else {
        format!("{b} → {n}")
    }
}

/// A side's mean with its standard deviation when there are several runs.
fn spread(m: Metric, mean: Option<f64>, sd: Option<f64>) -> String {
    match (mean, sd) {
        (Some(_), Some(s)) => format!("{} ± {}", value(m, mean), value(m, Some(s))),
        _ => value(m, mean),
    }
}

/// Whether the change was beyond noise, with its corrected p-value.
fn significance(g: &GroupDiff, m: Metric) -> String {
    match g.p[m.index()] {
        None => "-".into(),
        Some(p) if p < super::compare::ALPHA => format!("yes (p {})", p_text(p)),
        Some(p) => format!("no (p {})", p_text(p)),
    }
}

fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// The rules that failed on a group.
fn failed_rules<'g>(gates: &'g [Gate], key: &str) -> Vec<&'g str> {
    gates
        .iter()
        .filter(|g| g.failed.iter().any(|k| k == key))
        .map(|g| g.rule.text.as_str())
        .collect()
}

/// The header line: what was compared and how the groups changed.
fn headline(d: &Diff) -> String {
    let counts = d.counts();
    let parts: Vec<String> = counts
        .iter()
        .map(|(c, n)| format!("{n} {}", c.as_str()))
        .collect();
    format!(
        "{} groups by {}: {}; largest change of {} first",
        d.groups.len(),
        d.by.as_str(),
        parts.join(", "),
        d.sort.name()
    )
}

fn runs_line(side: &str, runs: &[super::run::RunInfo]) -> String {
    let files: Vec<&str> = runs.iter().map(|r| r.file.as_str()).collect();
    let slices: u64 = runs.iter().map(|r| r.slices).sum();
    if runs.len() == 1 {
        format!("{side}: {} ({} slices)", files[0], slices)
    } else {
        format!(
            "{side}: {} runs ({}), {} slices in all",
            runs.len(),
            files.join(", "),
            slices
        )
    }
}

/// The column heads and cells of the groups table (terminal and Markdown share them).
fn group_rows(d: &Diff, gates: &[Gate], top: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let s = d.sort;
    let several = d.base.len() > 1 || d.new.len() > 1;
    let mut head: Vec<String> = vec![d.by.as_str().into(), "change".into(), "count".into()];
    head.extend([
        format!("{} base", s.name()),
        format!("{} new", s.name()),
        format!("Δ {}", s.name()),
        "Δ %".into(),
    ]);
    if d.tested() {
        head.push("significant".into());
    }
    let others: Vec<Metric> = [Metric::Total, Metric::SelfTime, Metric::Mean, Metric::P95]
        .into_iter()
        .filter(|&m| m != s)
        .collect();
    for &m in &others {
        if m == Metric::Total || m == Metric::SelfTime {
            head.push(format!("Δ {}", m.name()));
        } else {
            head.push(m.name().to_string());
        }
    }
    if !gates.is_empty() {
        head.push("gate".into());
    }
    let rows = d
        .groups
        .iter()
        .take(top)
        .map(|g| {
            let sd = |side: &super::compare::SideStats| side.sd.and_then(|x| x[s.index()]);
            let mut r = vec![
                g.key.clone(),
                g.change.as_str().to_string(),
                pair(g, Metric::Count),
            ];
            if several {
                r.push(spread(s, g.base.get(s), sd(&g.base)));
                r.push(spread(s, g.new.get(s), sd(&g.new)));
            } else {
                r.push(value(s, g.base.get(s)));
                r.push(value(s, g.new.get(s)));
            }
            r.push(signed(s, g.delta(s)));
            r.push(percent(g, s));
            if d.tested() {
                r.push(significance(g, s));
            }
            for &m in &others {
                if m == Metric::Total || m == Metric::SelfTime {
                    r.push(signed(m, g.delta(m)));
                } else {
                    r.push(pair(g, m));
                }
            }
            if !gates.is_empty() {
                r.push(failed_rules(gates, &g.key).join(", "));
            }
            r
        })
        .collect();
    (head, rows)
}

/// The counter series whose average changed, largest relative change first.
fn changed_counters(d: &Diff) -> Vec<&CounterDiff> {
    let rel = |c: &CounterDiff| match (c.base, c.new) {
        (Some(b), Some(n)) if b.avg != 0.0 => ((n.avg - b.avg) / b.avg).abs(),
        (Some(b), Some(n)) if n.avg == b.avg => 0.0,
        _ => f64::INFINITY,
    };
    let mut v: Vec<&CounterDiff> = d
        .counters
        .iter()
        .filter(|c| {
            c.base.map(|x| x.avg) != c.new.map(|x| x.avg) || c.base.is_none() != c.new.is_none()
        })
        .collect();
    v.sort_by(|a, b| rel(b).total_cmp(&rel(a)).then_with(|| a.key.cmp(&b.key)));
    v
}

fn counter_rows(cs: &[&CounterDiff], top: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let num = |v: Option<f64>| v.map_or("-".to_string(), format_number);
    let arrow = |b: Option<f64>, n: Option<f64>| format!("{} → {}", num(b), num(n));
    let head = ["counter", "min", "max", "avg", "Δ avg %"]
        .map(String::from)
        .to_vec();
    let rows = cs
        .iter()
        .take(top)
        .map(|c| {
            let (b, n) = (c.base, c.new);
            let pct = match (b, n) {
                (Some(b), Some(n)) if b.avg != 0.0 => {
                    let p = (n.avg - b.avg) / b.avg * 100.0;
                    if p > 0.0 {
                        format!("+{p:.1}%")
                    } else {
                        format!("{p:.1}%")
                    }
                }
                (None, Some(_)) => "new".into(),
                (Some(_), None) => "gone".into(),
                _ => "-".into(),
            };
            vec![
                c.key.clone(),
                arrow(b.map(|x| x.min), n.map(|x| x.min)),
                arrow(b.map(|x| x.max), n.map(|x| x.max)),
                arrow(b.map(|x| x.avg), n.map(|x| x.avg)),
                pct,
            ]
        })
        .collect();
    (head, rows)
}

/// A counter value: integers as such, others with up to 4 decimals.
fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v}")
    } else {
        format!("{v:.4}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

fn more(total: usize, shown: usize, what: &str) -> Option<String> {
    (total > shown).then(|| format!("… {} more {what} (--top 0 shows all)", total - shown))
}

/// The terminal table.
pub fn terminal(d: &Diff, gates: &[Gate], top: usize) -> String {
    let mut out = format!(
        "{}\n{}\n",
        runs_line("base", &d.base),
        runs_line("new", &d.new)
    );
    out += &headline(d);
    out.push_str("\n\n");
    let (head, rows) = group_rows(d, gates, top);
    let mut all = vec![head];
    all.extend(rows);
    out += &crate::summary::table(&all);
    if let Some(m) = more(d.groups.len(), top.min(d.groups.len()), "groups") {
        out += &m;
        out.push('\n');
    }
    let cs = changed_counters(d);
    if !cs.is_empty() {
        let (head, rows) = counter_rows(&cs, top);
        let mut all = vec![head];
        all.extend(rows);
        out.push('\n');
        out += &crate::summary::table(&all);
        if let Some(m) = more(cs.len(), top.min(cs.len()), "counters") {
            out += &m;
            out.push('\n');
        }
    }
    out
}

/// Text in a Markdown table cell: as code, pipes escaped.
fn md_code(s: &str) -> String {
    let s = s.replace('|', "\\|");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn md_table(head: &[String], rows: &[Vec<String>], right_from: usize) -> String {
    let mut out = format!("| {} |\n|", head.join(" | "));
    for c in 0..head.len() {
        out += if c >= right_from { "--:|" } else { ":--|" };
    }
    out.push('\n');
    for r in rows {
        out += &format!("| {} |\n", r.join(" | "));
    }
    out
}

/// The Markdown comment: a headline, the groups table (failed groups marked ❌),
/// the gates, and the changed counters folded away.
pub fn markdown(d: &Diff, gates: &[Gate], top: usize) -> String {
    let counts: Vec<String> = d
        .counts()
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| format!("{n} {}", c.as_str()))
        .collect();
    let files = |runs: &[super::run::RunInfo]| match runs {
        [one] => md_code(&one.file),
        many => format!("{} runs", many.len()),
    };
    let mut out = format!(
        "### tracescope diff by {}: {}\n\nbase {} · new {} · largest change of {} first{}\n\n",
        d.by.as_str(),
        if counts.is_empty() {
            "no groups".into()
        } else {
            counts.join(", ")
        },
        files(&d.base),
        files(&d.new),
        d.sort.name(),
        if d.tested() {
            " · significant: Welch's t-test at 5%, Holm-corrected over the groups"
        } else {
            ""
        }
    );
    let (mut head, rows) = group_rows(d, gates, top);
    // The gate column becomes a mark in front.
    let gated = !gates.is_empty();
    if gated {
        head.pop();
        head.insert(0, String::new());
    }
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|mut r| {
            r[0] = md_code(&r[0]);
            if gated {
                let failed = !r.pop().unwrap_or_default().is_empty();
                r.insert(0, if failed { "❌".into() } else { String::new() });
            }
            r
        })
        .collect();
    out += &md_table(&head, &rows, if gated { 3 } else { 2 });
    if let Some(m) = more(d.groups.len(), top.min(d.groups.len()), "groups") {
        out += &format!("\n{m}\n");
    }
    if !gates.is_empty() {
        out += "\n**Gates**\n\n";
        for g in gates {
            if g.failed.is_empty() {
                out += &format!("- ✅ {} passed\n", md_code(&g.rule.text));
            } else {
                let keys: Vec<String> = g.failed.iter().map(|k| md_code(k)).collect();
                out += &format!(
                    "- ❌ {} failed on {}\n",
                    md_code(&g.rule.text),
                    keys.join(", ")
                );
            }
        }
    }
    let cs = changed_counters(d);
    if !cs.is_empty() {
        let (head, rows) = counter_rows(&cs, top);
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .map(|mut r| {
                r[0] = md_code(&r[0]);
                r
            })
            .collect();
        out += &format!(
            "\n<details><summary>{} counter series changed</summary>\n\n{}</details>\n",
            cs.len(),
            md_table(&head, &rows, 1)
        );
    }
    out
}

/// One line per failed group of a gate: rule, group, base, new.
pub fn failures(d: &Diff, gates: &[Gate]) -> Vec<String> {
    let mut out = Vec::new();
    for gate in gates {
        let m = gate.rule.metric;
        for key in &gate.failed {
            let Some(g) = d.groups.iter().find(|g| &g.key == key) else {
                continue;
            };
            out.push(format!(
                "gate {} failed: {key}: {} base {}, new {} ({}, {})",
                gate.rule.text,
                m.name(),
                value(m, g.base.get(m)),
                value(m, g.new.get(m)),
                signed(m, g.delta(m)),
                percent(g, m)
            ));
        }
    }
    out
}
