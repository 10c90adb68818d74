//! Times on the command line: `--range T0..T1` with units, and durations printed in
//! the unit that reads best.

use anyhow::{bail, Context, Result};

/// Parses `T0..T1`: each end a number with an optional unit (`ns` when none; `us`,
/// `µs`, `ms`, `s`), absolute like the `ts_ns` of `tracescope tables`, or after a
/// `+` relative to the trace's start. An empty end is open: `..5ms`, `+1s..`.
pub fn parse_range(text: &str, trace_start: i64) -> Result<(i64, i64)> {
    let (a, b) = text
        .split_once("..")
        .with_context(|| format!("--range {text:?} must look like T0..T1, e.g. +10ms..+25ms"))?;
    let end = |s: &str, open: i64| -> Result<i64> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(open);
        }
        match s.strip_prefix('+') {
            Some(rel) => Ok(trace_start.saturating_add(parse_time(rel)?)),
            None => parse_time(s),
        }
    };
    let (t0, t1) = (end(a, i64::MIN)?, end(b, i64::MAX)?);
    if t0 >= t1 {
        bail!("--range {text:?} is empty: its start must come before its end");
    }
    Ok((t0, t1))
}

/// A time with an optional unit, in ns (decimals allowed: `1.5ms`).
pub fn parse_time(s: &str) -> Result<i64> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let scale: f64 = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        u => bail!("unknown time unit {u:?} in {s:?}: use ns, us, ms or s"),
    };
    if let (Ok(n), 1.0) = (num.parse::<i64>(), scale) {
        return Ok(n);
    }
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && (v * scale).abs() < 9.2e18 => Ok((v * scale).round() as i64),
        _ => bail!("{s:?} is not a time (e.g. 1500, 2.5ms, +10us)"),
    }
}

/// A duration in ns with three significant digits in a fitting unit: `950 ns`,
/// `1.25 µs`, `12.5 ms`, `3.20 s`.
pub fn format_ns(ns: i64) -> String {
    let a = (ns as f64).abs();
    let (v, unit) = if a < 1e3 {
        return format!("{ns} ns");
    } else if a < 1e6 {
        (ns as f64 / 1e3, "µs")
    } else if a < 1e9 {
        (ns as f64 / 1e6, "ms")
    } else {
        (ns as f64 / 1e9, "s")
    };
    let d = if v.abs() >= 100.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.d$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_with_units_relative_and_open_ends() {
        assert_eq!(parse_range("1000..2000", 0).unwrap(), (1000, 2000));
        assert_eq!(parse_range("1us..2.5ms", 0).unwrap(), (1000, 2_500_000));
        assert_eq!(
            parse_range("+10ms..+20ms", 5).unwrap(),
            (10_000_005, 20_000_005)
        );
        assert_eq!(parse_range("..1s", 0).unwrap(), (i64::MIN, 1_000_000_000));
        assert_eq!(parse_range("+1µs..", 7).unwrap(), (1007, i64::MAX));
        assert_eq!(parse_range("-5..5", 0).unwrap(), (-5, 5));
        for bad in ["5", "5..5", "9..1", "1xs..2", "a..b", "1e400..2"] {
            assert!(parse_range(bad, 0).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(format_ns(950), "950 ns");
        assert_eq!(format_ns(1250), "1.25 µs");
        assert_eq!(format_ns(12_500_000), "12.5 ms");
        assert_eq!(format_ns(140_000), "140 µs");
        assert_eq!(format_ns(3_200_000_000), "3.20 s");
        assert_eq!(format_ns(-2000), "-2.00 µs");
    }
}
