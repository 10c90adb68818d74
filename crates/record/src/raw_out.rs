//! Writing one event into space reserved beforehand, without capacity checks.
//!
//! The formatter reserves an upper bound of an event's length once, then every
//! piece is stored through a raw cursor: no capacity test, no length update and
//! no call to `memcpy` per piece, and the output pointer stays in a register.
//! The event is committed (the vector's length set) only when it is complete, so
//! a malformed record leaves nothing behind.

use crate::json::{TsFormatter, HEX, PAIRS};

/// A cursor into reserved, uninitialized space of a `Vec<u8>`.
pub(crate) struct RawOut {
    p: *mut u8,
}

impl RawOut {
    /// A cursor at the end of `out`, which must have `bound` bytes reserved by
    /// the caller for everything written through the cursor.
    ///
    /// # Safety
    /// Every write through the cursor must stay within the reserved bound.
    #[inline(always)]
    pub unsafe fn at_end(out: &mut Vec<u8>) -> RawOut {
        RawOut {
            p: out.as_mut_ptr().add(out.len()),
        }
    }

    /// Sets `out`'s length to include what was written.
    ///
    /// # Safety
    /// `self` comes from `at_end(out)` and wrote within the reserved space.
    #[inline(always)]
    pub unsafe fn commit(self, out: &mut Vec<u8>) {
        let len = self.p.offset_from(out.as_ptr()) as usize;
        out.set_len(len);
    }

    /// Copies `s`: short pieces with at most two overlapping moves.
    #[inline(always)]
    pub unsafe fn put(&mut self, s: &[u8]) {
        let (n, src, dst) = (s.len(), s.as_ptr(), self.p);
        if n > 32 {
            std::ptr::copy_nonoverlapping(src, dst, n);
        } else if n >= 16 {
            let a = std::ptr::read_unaligned(src.cast::<u128>());
            let b = std::ptr::read_unaligned(src.add(n - 16).cast::<u128>());
            std::ptr::write_unaligned(dst.cast::<u128>(), a);
            std::ptr::write_unaligned(dst.add(n - 16).cast::<u128>(), b);
        } else if n >= 8 {
            let a = std::ptr::read_unaligned(src.cast::<u64>());
            let b = std::ptr::read_unaligned(src.add(n - 8).cast::<u64>());
            std::ptr::write_unaligned(dst.cast::<u64>(), a);
            std::ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), b);
        } else if n >= 4 {
            let a = std::ptr::read_unaligned(src.cast::<u32>());
            let b = std::ptr::read_unaligned(src.add(n - 4).cast::<u32>());
            std::ptr::write_unaligned(dst.cast::<u32>(), a);
            std::ptr::write_unaligned(dst.add(n - 4).cast::<u32>(), b);
        } else {
            for i in 0..n {
                *dst.add(i) = *src.add(i);
            }
        }
        self.p = dst.add(n);
    }

    #[inline(always)]
    pub unsafe fn byte(&mut self, b: u8) {
        *self.p = b;
        self.p = self.p.add(1);
    }

    /// An unsigned integer in decimal (at most 20 bytes).
    #[inline]
    pub unsafe fn uint(&mut self, mut v: u64) {
        let n = v.checked_ilog10().unwrap_or(0) as usize + 1;
        let mut i = n;
        while v >= 100 {
            let r = (v % 100) as usize * 2;
            v /= 100;
            i -= 2;
            std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(r), self.p.add(i), 2);
        }
        if v >= 10 {
            std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(v as usize * 2), self.p, 2);
        } else {
            *self.p = b'0' + v as u8;
        }
        self.p = self.p.add(n);
    }

    /// A signed integer in decimal (at most 20 bytes).
    #[inline]
    pub unsafe fn int(&mut self, v: i64) {
        if v < 0 {
            self.byte(b'-');
        }
        self.uint(v.unsigned_abs());
    }

    /// A float as JSON (at most 24 bytes); NaN and infinities become strings.
    pub unsafe fn float(&mut self, v: f64) {
        if v.is_finite() {
            self.put(ryu::Buffer::new().format_finite(v).as_bytes());
        } else if v.is_nan() {
            self.put(b"\"NaN\"");
        } else if v > 0.0 {
            self.put(b"\"Infinity\"");
        } else {
            self.put(b"\"-Infinity\"");
        }
    }

    /// `s` as a JSON string with quotes (at most `6 * len + 2` bytes).
    pub unsafe fn string(&mut self, s: &[u8]) {
        self.byte(b'"');
        let mut start = 0;
        for (i, &b) in s.iter().enumerate() {
            if b >= 0x20 && b != b'"' && b != b'\\' {
                continue;
            }
            self.put(&s[start..i]);
            match b {
                b'"' => self.put(b"\\\""),
                b'\\' => self.put(b"\\\\"),
                b'\n' => self.put(b"\\n"),
                b'\r' => self.put(b"\\r"),
                b'\t' => self.put(b"\\t"),
                _ => {
                    self.put(b"\\u00");
                    self.byte(HEX[(b >> 4) as usize]);
                    self.byte(HEX[(b & 15) as usize]);
                }
            }
            start = i + 1;
        }
        self.put(&s[start..]);
        self.byte(b'"');
    }

    /// An id as a hex string, `"0x1f"` (at most 20 bytes).
    #[inline]
    pub unsafe fn hex_id(&mut self, id: u64) {
        self.put(b"\"0x");
        let digits = (64 - id.leading_zeros()).div_ceil(4).max(1);
        for i in (0..digits).rev() {
            self.byte(HEX[((id >> (i * 4)) & 15) as usize]);
        }
        self.byte(b'"');
    }

    /// A timestamp: `ns` as microseconds with three decimals (at most 32 bytes).
    #[inline]
    pub unsafe fn ts(&mut self, f: &mut TsFormatter, ns: i64) {
        match f.parts(ns) {
            Some((prefix, head, tail)) => {
                self.put(prefix);
                std::ptr::write_unaligned(self.p.cast::<u64>(), head.to_le());
                std::ptr::write_unaligned(self.p.add(8).cast::<u16>(), tail.to_le());
                self.p = self.p.add(10);
            }
            None => {
                let mut v = Vec::with_capacity(32);
                f.write(&mut v, ns);
                self.put(&v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut RawOut)) -> String {
        let mut out = b"x".to_vec();
        out.reserve(256);
        // SAFETY: every case below writes far less than 256 bytes.
        unsafe {
            let mut w = RawOut::at_end(&mut out);
            f(&mut w);
            w.commit(&mut out);
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_what_the_vec_helpers_write() {
        let src: Vec<u8> = (b'a'..=b'z').chain(b'A'..=b'Z').collect();
        for n in 0..=52 {
            let got = with(|w| unsafe { w.put(&src[..n]) });
            assert_eq!(got.as_bytes()[1..], src[..n]);
        }
        for v in [0u64, 7, 10, 99, 100, 123_456, u64::MAX] {
            assert_eq!(with(|w| unsafe { w.uint(v) }), format!("x{v}"));
        }
        for v in [i64::MIN, -5, 0, 42, i64::MAX] {
            assert_eq!(with(|w| unsafe { w.int(v) }), format!("x{v}"));
        }
        assert_eq!(with(|w| unsafe { w.float(2.5) }), "x2.5");
        assert_eq!(with(|w| unsafe { w.float(f64::NAN) }), "x\"NaN\"");
        assert_eq!(
            with(|w| unsafe { w.string("a\"b\\c\n\u{1}é".as_bytes()) }),
            r#"x"a\"b\\c\n\u0001é""#
        );
        assert_eq!(with(|w| unsafe { w.hex_id(0) }), "x\"0x0\"");
        assert_eq!(
            with(|w| unsafe { w.hex_id(u64::MAX) }),
            "x\"0xffffffffffffffff\""
        );
        let mut f = TsFormatter::default();
        for ns in [
            0i64,
            5,
            999_999,
            1_000_000_000,
            3_238_448_479_522_123,
            -1_500,
        ] {
            let mut v = Vec::new();
            crate::json::micros(&mut v, ns);
            let want = format!("x{}", String::from_utf8(v).unwrap());
            assert_eq!(with(|w| unsafe { w.ts(&mut f, ns) }), want, "{ns}");
        }
    }
}
