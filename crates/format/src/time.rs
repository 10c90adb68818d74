//! Exact conversion of decimal microsecond text to integer nanoseconds.

/// Converts the text of a JSON number (or the content of a numeric string) in
/// microseconds to integer nanoseconds, exactly: `"1234.567"` is `1234567`.
/// Digits below one nanosecond are rounded half away from zero. Returns `None` if the
/// text is not a number or the value does not fit in an `i64` of nanoseconds.
pub fn micros_text_to_ns(text: &str) -> Option<i64> {
    if let Some(v) = micros_fast(text.as_bytes()) {
        return Some(v);
    }
    micros_exact(text)
}

/// The common case on the hot path: `[-]digits[.digits]` with at most 15 integer
/// digits and 3 fraction digits, in plain u64 arithmetic.
#[inline]
fn micros_fast(b: &[u8]) -> Option<i64> {
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut i = 0;
    let mut v: u64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        v = v * 10 + (b[i] - b'0') as u64;
        i += 1;
        if i > 15 {
            return None;
        }
    }
    if i == 0 {
        return None;
    }
    let mut frac = 0;
    let mut scale = 1000;
    if i < b.len() {
        if b[i] != b'.' {
            return None;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 3 {
            scale /= 10;
            frac += (b[i] - b'0') as u64 * scale;
            i += 1;
        }
        if i == start || i != b.len() {
            return None;
        }
    }
    let ns = (v * 1000 + frac) as i64;
    Some(if neg { -ns } else { ns })
}

fn micros_exact(text: &str) -> Option<i64> {
    units_to_ns(micros_text_to_units(text)?)
}

/// Sub-nanosecond units: 10^-9 ns (12 decimals of a microsecond), enough to add a
/// `ts` and a `dur` exactly before rounding their sum, as the spec asks.
const UNITS_PER_NS: i128 = 1_000_000_000;

/// The exact value of microsecond text in units of 10^-9 ns (digits beyond that are
/// rounded half away from zero). `None` if not a number or out of range.
pub fn micros_text_to_units(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    let (neg, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let mut digits: Vec<u8> = Vec::new();
    let mut frac_len: i64 = 0;
    let mut any = false;
    while i < b.len() && b[i].is_ascii_digit() {
        digits.push(b[i] - b'0');
        any = true;
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            digits.push(b[i] - b'0');
            frac_len += 1;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    let mut exp: i64 = 0;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        let mut eneg = false;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            eneg = b[i] == b'-';
            i += 1;
        }
        let es = i;
        while i < b.len() && b[i].is_ascii_digit() {
            exp = exp.saturating_mul(10).saturating_add((b[i] - b'0') as i64);
            i += 1;
        }
        if es == i {
            return None;
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != b.len() {
        return None;
    }
    // value = digits * 10^(exp - frac_len) us = digits * 10^(exp - frac_len + 12) units
    let shift = exp.saturating_sub(frac_len).saturating_add(12);
    let first_nonzero = digits.iter().position(|&d| d != 0);
    let Some(first) = first_nonzero else {
        return Some(0);
    };
    let digits = &digits[first..];
    let keep = if shift >= 0 {
        digits.len() as i64
    } else {
        digits.len() as i64 + shift
    };
    if keep < 0 {
        return Some(0);
    }
    let mut acc: i128 = 0;
    for &d in &digits[..keep as usize] {
        acc = acc.checked_mul(10)?.checked_add(d as i128)?;
    }
    if shift > 0 {
        for _ in 0..shift {
            acc = acc.checked_mul(10)?;
        }
    } else if (keep as usize) < digits.len() && digits[keep as usize] >= 5 {
        acc += 1;
    }
    Some(if neg { -acc } else { acc })
}

/// Rounds sub-nanosecond units to integer ns, half away from zero.
pub fn units_to_ns(u: i128) -> Option<i64> {
    let half = UNITS_PER_NS / 2;
    let r = if u >= 0 {
        (u + half) / UNITS_PER_NS
    } else {
        -((-u + half) / UNITS_PER_NS)
    };
    i64::try_from(r).ok()
}

/// The duration in ns of a span given as `ts` and `dur` microsecond text: both ends
/// are rounded to ns, then subtracted (`ts` 0.0006, `dur` 0.0008 is 0 ns long).
pub fn span_ns(ts_text: &str, dur_text: &str) -> Option<i64> {
    let ts = micros_text_to_units(ts_text)?;
    let dur = micros_text_to_units(dur_text)?;
    let start = units_to_ns(ts)?;
    let end = units_to_ns(ts.checked_add(dur)?)?;
    end.checked_sub(start)
}

/// Writes integer nanoseconds as decimal microseconds, the exact inverse of
/// [`micros_text_to_ns`]: `1234567` is `"1234.567"`, `-1500` is `"-1.5"`.
pub fn ns_to_micros_text(ns: i64, out: &mut String) {
    use std::fmt::Write;
    let neg = ns < 0;
    let abs = ns.unsigned_abs();
    let (whole, frac) = (abs / 1000, abs % 1000);
    if neg {
        out.push('-');
    }
    let _ = write!(out, "{whole}");
    if frac != 0 {
        let s = format!("{frac:03}");
        out.push('.');
        out.push_str(s.trim_end_matches('0'));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_decimal_micros() {
        assert_eq!(micros_text_to_ns("1234.567"), Some(1_234_567));
        assert_eq!(micros_text_to_ns("1.5"), Some(1500));
        assert_eq!(
            micros_text_to_ns("522975545427.123"),
            Some(522_975_545_427_123)
        );
        assert_eq!(micros_text_to_ns("0"), Some(0));
        assert_eq!(micros_text_to_ns("-1.5"), Some(-1500));
        assert_eq!(micros_text_to_ns("1e3"), Some(1_000_000));
        assert_eq!(micros_text_to_ns("1.5E-3"), Some(2)); // 1.5 ns rounds away from zero
        assert_eq!(micros_text_to_ns("-0.0015"), Some(-2));
        assert_eq!(micros_text_to_ns("0.0014999"), Some(1));
        assert_eq!(micros_text_to_ns("1234523.3"), Some(1_234_523_300));
        assert_eq!(micros_text_to_ns("4619295550.000"), Some(4_619_295_550_000));
        assert_eq!(micros_text_to_ns("0.0000001"), Some(0));
        assert_eq!(micros_text_to_ns("9223372036854775.807"), Some(i64::MAX));
        assert_eq!(micros_text_to_ns("9223372036854775.808"), None);
        assert_eq!(micros_text_to_ns("-9223372036854775.808"), Some(i64::MIN));
        assert_eq!(micros_text_to_ns("1e400"), None);
        assert_eq!(micros_text_to_ns("0e400"), Some(0));
        assert_eq!(micros_text_to_ns("1e-400"), Some(0));
        assert_eq!(micros_text_to_ns("9e-4"), Some(1)); // 0.9 ns
        assert_eq!(micros_text_to_ns("9e-5"), Some(0)); // 0.09 ns
        for bad in ["", "-", "abc", "1.2.3", "100a", "1e", ".", "0x10"] {
            assert_eq!(micros_text_to_ns(bad), None, "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_path_agrees_with_exact(int in 0u64..1_000_000_000_000_000, frac in proptest::option::of("[0-9]{1,4}"), neg: bool) {
            let text = format!("{}{int}{}", if neg { "-" } else { "" }, frac.map(|f| format!(".{f}")).unwrap_or_default());
            proptest::prop_assert_eq!(micros_text_to_ns(&text), micros_exact(&text), "{}", text);
        }
    }

    #[test]
    fn units_agree_with_ns_and_spans_round_both_ends() {
        for t in [
            "1234.567",
            "1.5",
            "-1.5",
            "1e3",
            "1.5E-3",
            "-0.0015",
            "0.0014999",
            "0",
            "9e-4",
            "522975545427.123",
        ] {
            let u = micros_text_to_units(t).unwrap();
            assert_eq!(units_to_ns(u), micros_text_to_ns(t), "{t}");
        }
        assert_eq!(span_ns("0.0006", "0.0008"), Some(0)); // 1 ns .. round(1.4) = 1 ns
        assert_eq!(span_ns("0.0004", "0.0002"), Some(1)); // 0 ns .. round(0.6) = 1 ns
        assert_eq!(span_ns("1", "2.5"), Some(2500));
        assert_eq!(span_ns("-1.0005", "0.001"), Some(1)); // -1001 .. round(-0.9995) = -1000
        assert_eq!(span_ns("x", "1"), None);
    }

    #[test]
    fn ns_text_round_trip() {
        for ns in [
            0,
            1,
            999,
            1000,
            1_234_567,
            -1500,
            i64::MAX,
            i64::MIN,
            522_975_545_427_123,
        ] {
            let mut s = String::new();
            ns_to_micros_text(ns, &mut s);
            assert_eq!(micros_text_to_ns(&s), Some(ns), "{s}");
        }
        let mut s = String::new();
        ns_to_micros_text(1_234_500, &mut s);
        assert_eq!(s, "1234.5");
    }
}
