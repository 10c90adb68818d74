//! The binary ETW payload of one Chrome event (`docs/architecture.md`, "Binary
//! encodings").
//!
//! ```text
//! name        NUL-terminated string
//! id          u64, little-endian
//! categories  NUL-terminated string, comma-separated
//! args        (opcode & 7) times: NUL-terminated name, NUL-terminated value
//! stack       if opcode & 0x08: u32 count, then count addresses of 4 or 8 bytes
//! ```
//!
//! Decoding checks every byte: a payload must end exactly where its last field
//! does. Strings that are not UTF-8 are decoded with U+FFFD replacements.

use std::borrow::Cow;

use super::chrome::{Bitness, ChromePayload, Opcode, MAX_ARGS};

/// A payload that does not decode, with the byte offset (within the payload) where
/// the problem is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad Chrome ETW payload at byte {offset}: {message}")]
pub struct PayloadError {
    pub offset: u64,
    pub message: String,
}

/// A Chrome event that has no ETW payload.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{0} arguments do not fit the opcode's 3 bits (at most 7)")]
    TooManyArgs(usize),
    #[error("the {0} contains a NUL byte, which ends a payload string")]
    Nul(String),
    #[error("stack address {0:#x} does not fit 32 bits")]
    AddressTooWide(u64),
    #[error("a stack of {0} frames does not fit the u32 count")]
    StackTooLong(usize),
}

/// `what` names the field in the error; it is only formatted then.
fn put_str(out: &mut Vec<u8>, s: &str, what: impl Fn() -> String) -> Result<(), EncodeError> {
    if memchr::memchr(0, s.as_bytes()).is_some() {
        return Err(EncodeError::Nul(what()));
    }
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Ok(())
}

/// Appends the payload of `p` to `out` and returns its opcode. On error `out` may
/// hold part of the payload; truncate it to its former length.
pub fn encode_payload(
    p: &ChromePayload<'_>,
    bits: Bitness,
    out: &mut Vec<u8>,
) -> Result<Opcode, EncodeError> {
    let op = p.opcode().ok_or(EncodeError::TooManyArgs(p.args.len()))?;
    put_str(out, &p.name, || "name".into())?;
    out.extend_from_slice(&p.id.to_le_bytes());
    put_str(out, &p.categories, || "categories".into())?;
    for (k, v) in &p.args {
        put_str(out, k, || format!("argument name {k:?}"))?;
        put_str(out, v, || format!("value of argument {k:?}"))?;
    }
    if let Some(stack) = &p.stack {
        let n = u32::try_from(stack.len()).map_err(|_| EncodeError::StackTooLong(stack.len()))?;
        out.extend_from_slice(&n.to_le_bytes());
        for &a in stack {
            match bits {
                Bitness::B32 => {
                    let a32 = u32::try_from(a).map_err(|_| EncodeError::AddressTooWide(a))?;
                    out.extend_from_slice(&a32.to_le_bytes());
                }
                Bitness::B64 => out.extend_from_slice(&a.to_le_bytes()),
            }
        }
    }
    Ok(op)
}

/// Reads bytes of a payload, naming the offset of whatever is wrong.
pub(crate) struct Cursor<'a> {
    pub b: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn err(&self, at: usize, message: impl Into<String>) -> PayloadError {
        PayloadError {
            offset: at as u64,
            message: message.into(),
        }
    }

    /// `what` names the field in the error; it is only formatted then.
    pub fn cstr(&mut self, what: impl std::fmt::Display) -> Result<Cow<'a, str>, PayloadError> {
        let rest = &self.b[self.pos.min(self.b.len())..];
        let Some(n) = memchr::memchr(0, rest) else {
            return Err(self.err(
                self.pos,
                format!("the {what} has no terminating NUL before the end"),
            ));
        };
        self.pos += n + 1;
        Ok(String::from_utf8_lossy(&rest[..n]))
    }

    pub fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], PayloadError> {
        match self.b.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                Ok(a)
            }
            None => Err(self.err(
                self.pos,
                format!(
                    "the {what} needs {N} bytes, {} left",
                    self.b.len() - self.pos
                ),
            )),
        }
    }
}

/// Decodes a payload whose opcode is `opcode`. Every byte must be used.
pub fn decode_payload(
    opcode: u8,
    bytes: &[u8],
    bits: Bitness,
) -> Result<ChromePayload<'_>, PayloadError> {
    let op = Opcode(opcode);
    let mut c = Cursor { b: bytes, pos: 0 };
    let ty = op.ty().ok_or_else(|| {
        c.err(
            0,
            format!(
                "opcode {opcode:#04x} has no Chrome event type (type {})",
                opcode >> 4
            ),
        )
    })?;
    let name = c.cstr("name")?;
    let id = u64::from_le_bytes(c.take::<8>("id")?);
    let categories = c.cstr("categories")?;
    let mut args = Vec::with_capacity(op.args());
    for i in 0..op.args() {
        let k = c.cstr(format_args!("name of argument {i}"))?;
        let v = c.cstr(format_args!("value of argument {i}"))?;
        args.push((k, v));
    }
    let stack = if op.has_stack() {
        let at = c.pos;
        let n = u32::from_le_bytes(c.take::<4>("stack size")?) as usize;
        let need = n
            .checked_mul(bits.bytes())
            .filter(|&need| need <= bytes.len() - c.pos);
        if need.is_none() {
            return Err(c.err(
                at,
                format!(
                    "stack size {n} needs {} more bytes, {} left",
                    n as u128 * bits.bytes() as u128,
                    bytes.len() - c.pos
                ),
            ));
        }
        let mut s = Vec::with_capacity(n);
        for _ in 0..n {
            s.push(match bits {
                Bitness::B32 => u64::from(u32::from_le_bytes(c.take::<4>("address")?)),
                Bitness::B64 => u64::from_le_bytes(c.take::<8>("address")?),
            });
        }
        Some(s)
    } else {
        None
    };
    if c.pos != bytes.len() {
        return Err(c.err(
            c.pos,
            format!("{} bytes left after the last field", bytes.len() - c.pos),
        ));
    }
    debug_assert!(args.len() <= MAX_ARGS);
    Ok(ChromePayload {
        ty,
        name,
        id,
        categories,
        args,
        stack,
    })
}

#[cfg(test)]
mod tests {
    use super::super::chrome::ChromeType;
    use super::*;

    fn payload(ty: ChromeType, nargs: usize, stack: Option<Vec<u64>>) -> ChromePayload<'static> {
        ChromePayload {
            ty,
            name: "MessageLoop::RunTask".into(),
            id: 0x1122_3344_5566_7788,
            categories: "toplevel,ipc".into(),
            args: (0..nargs)
                .map(|i| (format!("arg{i}").into(), format!("value {i}").into()))
                .collect(),
            stack,
        }
    }

    #[test]
    fn every_opcode_and_shape_round_trips() {
        for ty in ChromeType::ALL {
            for nargs in 0..=MAX_ARGS {
                for bits in [Bitness::B32, Bitness::B64] {
                    for stack in [None, Some(vec![]), Some(vec![0x1000, 0xdead_beef, 7])] {
                        let p = payload(ty, nargs, stack.clone());
                        let mut out = Vec::new();
                        let op = encode_payload(&p, bits, &mut out).unwrap();
                        assert_eq!(op, Opcode::new(ty, stack.is_some(), nargs).unwrap());
                        let stack_len = stack.as_ref().map_or(0, |s| 4 + s.len() * bits.bytes());
                        let args_len: usize =
                            p.args.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
                        assert_eq!(out.len(), 21 + 8 + 13 + args_len + stack_len);
                        assert_eq!(decode_payload(op.0, &out, bits).unwrap(), p);
                    }
                }
            }
        }
    }

    #[test]
    fn exact_bytes() {
        let p = ChromePayload {
            ty: ChromeType::Begin,
            name: "f".into(),
            id: 2,
            categories: "a,b".into(),
            args: vec![("k".into(), "v".into())],
            stack: Some(vec![0x10, 0x20]),
        };
        let mut out = Vec::new();
        assert_eq!(encode_payload(&p, Bitness::B32, &mut out), Ok(Opcode(0x19)));
        let want: &[u8] = b"f\0\x02\0\0\0\0\0\0\0a,b\0k\0v\0\x02\0\0\0\x10\0\0\0\x20\0\0\0";
        assert_eq!(out, want);
        out.clear();
        encode_payload(&p, Bitness::B64, &mut out).unwrap();
        assert_eq!(
            &out[out.len() - 20..],
            b"\x02\0\0\0\x10\0\0\0\0\0\0\0\x20\0\0\0\0\0\0\0"
        );
    }

    #[test]
    fn encode_errors() {
        let mut out = Vec::new();
        assert_eq!(
            encode_payload(&payload(ChromeType::Begin, 8, None), Bitness::B64, &mut out),
            Err(EncodeError::TooManyArgs(8))
        );
        let mut p = payload(ChromeType::Begin, 0, Some(vec![1 << 32]));
        assert_eq!(
            encode_payload(&p, Bitness::B32, &mut out),
            Err(EncodeError::AddressTooWide(1 << 32))
        );
        p.stack = None;
        p.name = "a\0b".into();
        assert_eq!(
            encode_payload(&p, Bitness::B32, &mut out),
            Err(EncodeError::Nul("name".into()))
        );
    }

    #[test]
    fn decode_errors_name_the_offset() {
        let err = |op: u8, b: &[u8]| decode_payload(op, b, Bitness::B32).unwrap_err();
        assert_eq!(err(0x05, b"x\0").offset, 0);
        assert!(err(0x05, b"x\0").message.contains("no Chrome event type"));
        let e = err(0x10, b"name");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (0, "the name has no terminating NUL before the end")
        );
        let e = err(0x10, b"n\0\x01\x02");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (2, "the id needs 8 bytes, 2 left")
        );
        let e = err(0x10, b"n\0\0\0\0\0\0\0\0\0c\0extra");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (12, "5 bytes left after the last field")
        );
        let e = err(0x11, b"n\0\0\0\0\0\0\0\0\0c\0k\0");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (
                14,
                "the value of argument 0 has no terminating NUL before the end"
            )
        );
        let e = err(0x18, b"n\0\0\0\0\0\0\0\0\0c\0\xff\xff\xff\xff");
        assert_eq!(e.offset, 12);
        assert!(
            e.message
                .starts_with("stack size 4294967295 needs 17179869180 more bytes"),
            "{}",
            e.message
        );
        let e = err(0x18, b"n\0\0\0\0\0\0\0\0\0c\0\x01\0\0\0\x01\0\0\0\x02");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (20, "1 bytes left after the last field")
        );
    }

    #[test]
    fn non_utf8_is_replaced() {
        let p = decode_payload(0x20, b"\xff\0\0\0\0\0\0\0\0\0\0", Bitness::B64).unwrap();
        assert_eq!(
            (p.ty, p.name.as_ref(), p.categories.as_ref()),
            (ChromeType::Instant, "\u{FFFD}", "")
        );
    }
}
