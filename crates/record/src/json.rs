//! Small JSON output helpers for the writer thread.

/// Appends `s` as a JSON string literal (with quotes).
pub(crate) fn string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    escaped(out, s);
    out.push(b'"');
}

/// Appends the JSON escaping of `s` (no quotes). Valid UTF-8 passes through.
pub(crate) fn escaped(out: &mut Vec<u8>, s: &[u8]) {
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.extend_from_slice(&s[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
}

pub(crate) fn int<I: itoa::Integer>(out: &mut Vec<u8>, v: I) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A float as JSON; NaN and infinities (not JSON numbers) become strings.
pub(crate) fn float(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        out.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
    } else if v.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if v > 0.0 {
        out.extend_from_slice(b"\"Infinity\"");
    } else {
        out.extend_from_slice(b"\"-Infinity\"");
    }
}

/// Nanoseconds as microseconds with three decimals, exactly (`1234567` -> `1234.567`).
pub(crate) fn micros(out: &mut Vec<u8>, ns: i64) {
    if ns < 0 {
        out.push(b'-');
    }
    let ns = ns.unsigned_abs();
    int(out, ns / 1000);
    let frac = (ns % 1000) as u16;
    out.extend_from_slice(&[
        b'.',
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ]);
}

/// An id as a hex string (`"0x1f"`): exact in every reader, JavaScript included.
pub(crate) fn hex_id(out: &mut Vec<u8>, id: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b"\"0x");
    let digits = (64 - id.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        out.push(HEX[((id >> (i * 4)) & 15) as usize]);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn formats() {
        assert_eq!(
            s(|o| string(o, "a\"b\\c\n\u{1}é".as_bytes())),
            r#""a\"b\\c\n\u0001é""#
        );
        assert_eq!(s(|o| micros(o, 1_234_567)), "1234.567");
        assert_eq!(s(|o| micros(o, 5)), "0.005");
        assert_eq!(s(|o| micros(o, -1_500)), "-1.500");
        assert_eq!(s(|o| hex_id(o, 0)), "\"0x0\"");
        assert_eq!(s(|o| hex_id(o, 0x1f)), "\"0x1f\"");
        assert_eq!(s(|o| hex_id(o, u64::MAX)), "\"0xffffffffffffffff\"");
        assert_eq!(s(|o| float(o, 2.5)), "2.5");
        assert_eq!(s(|o| float(o, f64::NAN)), "\"NaN\"");
        assert_eq!(s(|o| int(o, -7i64)), "-7");
    }
}
