//! Regression gates: `--fail-on [KEY:]METRIC>+N%` or `[KEY:]METRIC>+DURATION`.
//!
//! A rule fails on a group when the metric grew by more than the limit from base
//! to new. A percentage needs a base above zero (it does not apply to added
//! groups); an amount (a duration, or a number for `count`) counts an absent side
//! as zero, so an added group fails `total>+2ms` when it takes more than 2 ms. With
//! at least two runs on each side, only a significant change fails.

use anyhow::{bail, Result};

use super::compare::{Diff, GroupDiff};
use super::metric::Metric;
use crate::units::parse_time;

/// By how much a metric may grow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// Percent of the base.
    Percent(f64),
    /// Nanoseconds, or a count.
    Amount(f64),
}

/// One `--fail-on` rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// As given.
    pub text: String,
    /// The one group it applies to (`None`: every group).
    pub key: Option<String>,
    pub metric: Metric,
    pub limit: Limit,
}

const FORM: &str = "expected [KEY:]METRIC>+N% or [KEY:]METRIC>+DURATION (e.g. total>+10%, \
                    p95>+2ms, aten::mm:self>+5%), METRIC one of count, total, self, mean, p50, \
                    p95, p99, max";

impl Rule {
    pub fn parse(text: &str) -> Result<Rule> {
        let bad = |why: &str| anyhow::anyhow!("bad --fail-on rule {text:?}: {why}; {FORM}");
        // The limit never holds '>' or ':', a key may (`aten::mm`).
        let Some((left, limit)) = text.rsplit_once('>') else {
            bail!(bad("no '>'"));
        };
        let (key, metric) = match left.rsplit_once(':') {
            Some((k, m)) => (Some(k), m),
            None => (None, left),
        };
        if key == Some("") {
            bail!(bad("empty KEY before ':'"));
        }
        let metric = Metric::parse(metric.trim())
            .ok_or_else(|| bad(&format!("unknown metric {:?}", metric.trim())))?;
        let limit = limit.trim();
        let amount = limit.strip_prefix('+').unwrap_or(limit);
        if amount.is_empty() || amount.starts_with(['-', '+']) {
            bail!(bad("the limit must be a positive amount"));
        }
        let limit = if let Some(pct) = amount.strip_suffix('%') {
            match pct.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Limit::Percent(v),
                _ => bail!(bad(&format!("{pct:?} is not a percentage"))),
            }
        } else if metric == Metric::Count {
            match amount.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Limit::Amount(v),
                _ => bail!(bad(
                    "a count limit is a number or a percentage (count>+5, count>+10%)"
                )),
            }
        } else {
            if amount.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                bail!(bad("a duration needs a unit: ns, us, ms or s"));
            }
            match parse_time(amount) {
                Ok(ns) if ns >= 0 => Limit::Amount(ns as f64),
                Ok(_) => bail!(bad("the limit must be a positive amount")),
                Err(e) => bail!(bad(&e.to_string())),
            }
        };
        Ok(Rule {
            text: text.to_string(),
            key: key.map(str::to_string),
            metric,
            limit,
        })
    }

    /// Whether the rule fails on a group (see the module's doc).
    pub fn fails(&self, g: &GroupDiff, tested: bool) -> bool {
        let m = self.metric;
        let (b, n) = (g.base.get(m), g.new.get(m));
        let grew = match self.limit {
            Limit::Percent(pct) => match (b, n) {
                (Some(b), Some(n)) if b > 0.0 => (n - b) / b * 100.0 > pct,
                _ => false,
            },
            Limit::Amount(a) => {
                if b.is_none() && n.is_none() {
                    return false;
                }
                n.unwrap_or(0.0) - b.unwrap_or(0.0) > a
            }
        };
        grew && (!tested || g.significant(m) == Some(true))
    }
}

/// A rule's outcome: the groups it failed on (keys).
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    pub rule: Rule,
    pub failed: Vec<String>,
}

/// Every rule over every group. A rule's KEY that no group of either side has is
/// an error (a misspelt key would otherwise pass silently).
pub fn evaluate(rules: &[Rule], diff: &Diff) -> Result<Vec<Gate>> {
    let tested = diff.tested();
    rules
        .iter()
        .map(|r| {
            if let Some(k) = &r.key {
                if !diff.groups.iter().any(|g| &g.key == k) {
                    bail!(
                        "--fail-on {:?}: no group {k:?} in the base or the new runs (groups are by {}; \
                         `tracescope diff --by {} --top 0` lists them)",
                        r.text,
                        diff.by.as_str(),
                        diff.by.as_str()
                    );
                }
            }
            let failed = diff
                .groups
                .iter()
                .filter(|g| r.key.as_ref().is_none_or(|k| &g.key == k))
                .filter(|g| r.fails(g, tested))
                .map(|g| g.key.clone())
                .collect();
            Ok(Gate {
                rule: r.clone(),
                failed,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> (Option<String>, Metric, Limit) {
        let r = Rule::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(r.text, text);
        (r.key, r.metric, r.limit)
    }

    #[test]
    fn rules_with_and_without_keys() {
        assert_eq!(
            rule("total>+10%"),
            (None, Metric::Total, Limit::Percent(10.0))
        );
        assert_eq!(rule("p95>+2ms"), (None, Metric::P95, Limit::Amount(2e6)));
        assert_eq!(rule("max>1.5s"), (None, Metric::Max, Limit::Amount(1.5e9)));
        assert_eq!(
            rule("mean>+250us"),
            (None, Metric::Mean, Limit::Amount(250e3))
        );
        assert_eq!(rule("p50>+0.5%"), (None, Metric::P50, Limit::Percent(0.5)));
        assert_eq!(rule("count>+3"), (None, Metric::Count, Limit::Amount(3.0)));
        // Keys keep their own colons and spaces: only the last ':' ends them.
        assert_eq!(
            rule("aten::mm:self>+5%"),
            (
                Some("aten::mm".into()),
                Metric::SelfTime,
                Limit::Percent(5.0)
            )
        );
        assert_eq!(
            rule("Renderer [a.com]/CrRendererMain:p99>+1ms"),
            (
                Some("Renderer [a.com]/CrRendererMain".into()),
                Metric::P99,
                Limit::Amount(1e6)
            )
        );
    }

    #[test]
    fn bad_rules_say_why() {
        for (text, why) in [
            ("total", "no '>'"),
            ("total>", "positive amount"),
            ("total>+", "positive amount"),
            ("avg>+1%", "unknown metric \"avg\""),
            ("total>+x%", "not a percentage"),
            ("total>+5", "needs a unit"),
            ("count>+1ms", "a count limit"),
        ] {
            let e = Rule::parse(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
            assert!(
                e.starts_with(&format!("bad --fail-on rule {text:?}")),
                "{e}"
            );
        }
    }
}
