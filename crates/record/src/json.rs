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
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
}

/// An integer that [`int`] formats.
pub(crate) trait Int: Copy {
    /// Sign and magnitude.
    fn split(self) -> (bool, u64);
}

macro_rules! int_impl {
    (unsigned: $($t:ty),*) => {$(
        impl Int for $t {
            #[inline(always)]
            fn split(self) -> (bool, u64) {
                (false, self as u64)
            }
        }
    )*};
    (signed: $($t:ty),*) => {$(
        impl Int for $t {
            #[inline(always)]
            fn split(self) -> (bool, u64) {
                (self < 0, (self as i64).unsigned_abs())
            }
        }
    )*};
}
int_impl!(unsigned: u32, u64, usize);
int_impl!(signed: i32, i64);

/// Appends an integer in decimal. The digits go straight into `out`, two at a
/// time, with no stack buffer in between (copying one out of a buffer written
/// two bytes at a time stalls store forwarding).
#[inline]
pub(crate) fn int(out: &mut Vec<u8>, v: impl Int) {
    let (negative, mut v) = v.split();
    if negative {
        out.push(b'-');
    }
    let n = v.checked_ilog10().unwrap_or(0) as usize + 1;
    out.reserve(n);
    // SAFETY: `reserve` made room for the `n` digits written below `len + n`.
    unsafe {
        let dst = out.as_mut_ptr().add(out.len());
        let mut i = n;
        while v >= 100 {
            let r = (v % 100) as usize * 2;
            v /= 100;
            i -= 2;
            std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(r), dst.add(i), 2);
        }
        if v >= 10 {
            std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(v as usize * 2), dst, 2);
        } else {
            *dst = b'0' + v as u8;
        }
        out.set_len(out.len() + n);
    }
}

/// A float as JSON; NaN and infinities (not JSON numbers) become strings.
#[cfg_attr(not(feature = "tracing"), allow(dead_code))] // the `tracing` layer's fields
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

/// Formats trace timestamps (`ns` as microseconds with three decimals) fast:
/// consecutive events share their leading digits, so the digits above the
/// millisecond are cached and the rest are written with a fixed-width table.
#[derive(Default)]
pub(crate) struct TsFormatter {
    /// `ns / 1e9` of the cached prefix, and its digits (the whole seconds).
    secs: Option<u64>,
    prefix: Vec<u8>,
}

pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

pub(crate) const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

impl TsFormatter {
    /// The timestamp as its cached whole-seconds digits and the ten bytes
    /// `uuuuuu.nnn` below the second (as little-endian words); None below one
    /// second or before zero, which `write` handles.
    #[inline]
    pub fn parts(&mut self, ns: i64) -> Option<(&[u8], u64, u16)> {
        if ns < 1_000_000_000 {
            return None;
        }
        let ns = ns as u64;
        let secs = ns / 1_000_000_000;
        if self.secs != Some(secs) {
            self.secs = Some(secs);
            self.prefix.clear();
            int(&mut self.prefix, secs);
        }
        // Built in registers and stored once: a stack array written two bytes
        // at a time and read back as one word stalls store forwarding.
        let sub = (ns % 1_000_000_000) as u32;
        let (us, frac) = (sub / 1000, sub % 1000);
        let pair = |v: u32| {
            u64::from(u16::from_le_bytes([
                PAIRS[v as usize * 2],
                PAIRS[v as usize * 2 + 1],
            ]))
        };
        let head = pair(us / 10_000)
            | pair(us / 100 % 100) << 16
            | pair(us % 100) << 32
            | u64::from(b'.') << 48
            | u64::from(b'0' + (frac / 100) as u8) << 56;
        Some((&self.prefix, head, pair(frac % 100) as u16))
    }

    pub fn write(&mut self, out: &mut Vec<u8>, ns: i64) {
        match self.parts(ns) {
            Some((prefix, head, tail)) => {
                out.extend_from_slice(prefix);
                out.extend_from_slice(&head.to_le_bytes());
                out.extend_from_slice(&tail.to_le_bytes());
            }
            None => micros(out, ns),
        }
    }
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
        assert_eq!(s(|o| float(o, 2.5)), "2.5");
        assert_eq!(s(|o| float(o, f64::NAN)), "\"NaN\"");
        assert_eq!(s(|o| int(o, -7i64)), "-7");
        for v in [0u64, 9, 10, 99, 100, 12345, 1 << 40, u64::MAX] {
            assert_eq!(s(|o| int(o, v)), v.to_string());
        }
        for v in [i64::MIN, -100, -1, 0, 1, 99, 101, i64::MAX] {
            assert_eq!(s(|o| int(o, v)), v.to_string());
        }
        let mut t = TsFormatter::default();
        for ns in [
            0i64,
            5,
            999_999,
            1_000_000_000,
            3_238_448_479_522_123,
            3_238_448_479_522_124,
            12_345_678_901,
        ] {
            assert_eq!(s(|o| t.write(o, ns)), s(|o| micros(o, ns)), "{ns}");
        }
    }
}
