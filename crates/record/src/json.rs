//! Small JSON output helpers for the writer thread.

/// Appends `s`, which is usually short: copied inline with at most two
/// overlapping 8- or 16-byte moves instead of a call to `memcpy` (most of an
/// event's pieces are 5 to 40 bytes, and a call per piece was a tenth of the
/// writer's time).
#[inline(always)]
pub(crate) fn put(out: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    if n > 32 {
        out.extend_from_slice(s);
        return;
    }
    out.reserve(n);
    // SAFETY: `reserve` made room for `n` bytes after `len`; every move below
    // reads inside `s` and writes inside that room, then `len` grows by `n`.
    unsafe {
        let dst = out.as_mut_ptr().add(out.len());
        let src = s.as_ptr();
        if n >= 16 {
            let a = std::ptr::read_unaligned(src.cast::<u128>());
            let b = std::ptr::read_unaligned(src.add(n - 16).cast::<u128>());
            std::ptr::write_unaligned(dst.cast::<u128>(), a);
            std::ptr::write_unaligned(dst.add(n - 16).cast::<u128>(), b);
        } else if n >= 8 {
            let a = std::ptr::read_unaligned(src.cast::<u64>());
            let b = std::ptr::read_unaligned(src.add(n - 8).cast::<u64>());
            std::ptr::write_unaligned(dst.cast::<u64>(), a);
            std::ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), b);
        } else {
            for i in 0..n {
                *dst.add(i) = *src.add(i);
            }
        }
        out.set_len(out.len() + n);
    }
}

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
    put(out, itoa::Buffer::new().format(v).as_bytes());
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

/// Formats trace timestamps (`ns` as microseconds with three decimals) fast:
/// consecutive events share their leading digits, so the digits above the
/// millisecond are cached and the rest are written with a fixed-width table.
#[derive(Default)]
pub(crate) struct TsFormatter {
    /// `ns / 1e9` of the cached prefix, and its digits (the whole seconds).
    secs: Option<u64>,
    prefix: Vec<u8>,
}

const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

impl TsFormatter {
    pub fn write(&mut self, out: &mut Vec<u8>, ns: i64) {
        if ns < 0 {
            return micros(out, ns);
        }
        let ns = ns as u64;
        let secs = ns / 1_000_000_000;
        if self.secs != Some(secs) {
            self.secs = Some(secs);
            self.prefix.clear();
            if secs > 0 {
                int(&mut self.prefix, secs);
            }
        }
        // The nine digits below the second: six of microseconds, then three of ns.
        let sub = (ns % 1_000_000_000) as u32;
        let mut d = [0u8; 10];
        let pair = |v: u32| &PAIRS[(v as usize) * 2..(v as usize) * 2 + 2];
        let (us, frac) = (sub / 1000, sub % 1000);
        d[0..2].copy_from_slice(pair(us / 10_000));
        d[2..4].copy_from_slice(pair(us / 100 % 100));
        d[4..6].copy_from_slice(pair(us % 100));
        d[6] = b'.';
        d[7] = b'0' + (frac / 100) as u8;
        d[8..10].copy_from_slice(pair(frac % 100));
        if self.prefix.is_empty() {
            // Below one second: no leading zeros in the integer part.
            let skip = d[..5].iter().take_while(|&&c| c == b'0').count();
            out.extend_from_slice(&d[skip..]);
        } else {
            put(out, &self.prefix);
            put(out, &d);
        }
    }
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
    fn put_copies_every_length() {
        let src: Vec<u8> = (0..40u8).collect();
        for n in 0..=40 {
            let mut out = b"ab".to_vec();
            put(&mut out, &src[..n]);
            assert_eq!(&out[..2], b"ab");
            assert_eq!(&out[2..], &src[..n], "{n}");
        }
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
