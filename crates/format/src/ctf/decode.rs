//! Decodes CTF binary data by its TSDL types into a flat arena of values.
//!
//! Compound values (structs, arrays) occupy a contiguous run of arena slots, one per
//! member, reserved before the members are decoded; so an event decodes with no
//! allocation once the arena has grown. Sequence lengths and variant tags are found
//! by name: first among the already-decoded fields of the structs being decoded
//! (innermost first), then in the event's other scopes, or by an absolute path
//! (`stream.event.header.id`).

use super::types::{same_name, ByteOrder, IntType, Len, Type};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val<'a> {
    Missing,
    U(u64),
    I(i64),
    F(f64),
    /// A string or a text array, without its terminating NUL.
    Str(&'a [u8]),
    /// Struct members or array elements in `len` slots from `start`.
    Kids {
        start: u32,
        len: u32,
    },
    /// A variant: the selected option and the slot holding its value.
    Var {
        opt: u32,
        slot: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Bit position in the stream file.
    pub bit: u64,
    pub message: String,
}

/// The event's scopes, in the order CTF decodes them.
pub const SCOPE_NAMES: [&[&str]; 6] = [
    &["trace", "packet", "header"],
    &["stream", "packet", "context"],
    &["stream", "event", "header"],
    &["stream", "event", "context"],
    &["event", "context"],
    &["event", "fields"],
];

#[derive(Clone, Copy)]
struct Frame<'t> {
    ty: &'t Type,
    base: u32,
    done: u32,
}

/// Arena slots an event may use: bounds memory on hostile lengths.
const MAX_SLOTS: usize = 1 << 24;

pub struct Decoder<'a, 't> {
    pub data: &'a [u8],
    /// Current bit position in `data`.
    pub pos: u64,
    /// Bit position where the packet's content ends.
    pub end: u64,
    pub order: ByteOrder,
    pub vals: Vec<Val<'a>>,
    pub scopes: [Option<(&'t Type, u32)>; 6],
    frames: Vec<Frame<'t>>,
}

impl<'a, 't> Decoder<'a, 't> {
    pub fn new(data: &'a [u8], order: ByteOrder) -> Self {
        Decoder {
            data,
            pos: 0,
            end: data.len() as u64 * 8,
            order,
            vals: Vec::with_capacity(256),
            scopes: [None; 6],
            frames: Vec::new(),
        }
    }

    pub fn err(&self, message: impl Into<String>) -> DecodeError {
        DecodeError {
            bit: self.pos,
            message: message.into(),
        }
    }

    fn align(&mut self, bits: u32) -> Result<(), DecodeError> {
        let a = u64::from(bits.max(1));
        let p = self.pos.div_ceil(a) * a;
        if p > self.end {
            return Err(self.err("alignment padding runs past the packet content"));
        }
        self.pos = p;
        Ok(())
    }

    fn read_bits(&mut self, size: u32, order: ByteOrder) -> Result<u64, DecodeError> {
        let size64 = u64::from(size);
        if self.pos + size64 > self.end {
            return Err(self.err(format!("a {size}-bit value runs past the packet content")));
        }
        let p = self.pos;
        let v = if p.is_multiple_of(8) && size.is_multiple_of(8) {
            let i = (p / 8) as usize;
            let bytes = &self.data[i..i + (size / 8) as usize];
            match order {
                ByteOrder::Le => bytes
                    .iter()
                    .rev()
                    .fold(0u64, |v, &b| (v << 8) | u64::from(b)),
                ByteOrder::Be => bytes.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)),
            }
        } else {
            let mut v = 0u64;
            for k in 0..size64 {
                let q = p + k;
                let byte = self.data[(q / 8) as usize];
                match order {
                    ByteOrder::Le => v |= u64::from((byte >> (q % 8)) & 1) << k,
                    ByteOrder::Be => v = (v << 1) | u64::from((byte >> (7 - q % 8)) & 1),
                }
            }
            v
        };
        self.pos += size64;
        Ok(v)
    }

    fn int(&mut self, t: &IntType) -> Result<Val<'a>, DecodeError> {
        self.align(t.align)?;
        let v = self.read_bits(t.size, t.byte_order.unwrap_or(self.order))?;
        Ok(if t.signed {
            let shift = 64 - t.size;
            Val::I(((v << shift) as i64) >> shift)
        } else {
            Val::U(v)
        })
    }

    /// Decodes a root type (a scope) into a new slot and returns the slot.
    pub fn root(&mut self, ty: &'t Type) -> Result<u32, DecodeError> {
        let slot = self.vals.len();
        self.vals.push(Val::Missing);
        self.frames.clear();
        self.decode(ty, slot)?;
        Ok(slot as u32)
    }

    fn reserve(&mut self, n: u64) -> Result<u32, DecodeError> {
        let start = self.vals.len();
        if n > (MAX_SLOTS - start.min(MAX_SLOTS)) as u64 {
            return Err(self.err(format!("{n} members is more than an event may hold")));
        }
        self.vals.resize(start + n as usize, Val::Missing);
        Ok(start as u32)
    }

    fn decode(&mut self, ty: &'t Type, slot: usize) -> Result<(), DecodeError> {
        let v = match ty {
            Type::Int(t) | Type::Enum { int: t, .. } => self.int(t)?,
            Type::Float {
                size,
                align,
                byte_order,
            } => {
                self.align(*align)?;
                let bits = self.read_bits((*size).min(64), byte_order.unwrap_or(self.order))?;
                Val::F(match size {
                    32 => f64::from(f32::from_bits(bits as u32)),
                    _ => f64::from_bits(bits),
                })
            }
            Type::Str => {
                self.align(8)?;
                let (s, e) = ((self.pos / 8) as usize, (self.end / 8) as usize);
                let Some(n) = memchr::memchr(0, &self.data[s..e.max(s)]) else {
                    return Err(
                        self.err("a string has no NUL before the end of the packet content")
                    );
                };
                self.pos += (n as u64 + 1) * 8;
                Val::Str(&self.data[s..s + n])
            }
            Type::Struct { fields, .. } => {
                self.align(ty.align())?;
                let start = self.reserve(fields.len() as u64)?;
                self.frames.push(Frame {
                    ty,
                    base: start,
                    done: 0,
                });
                for (i, (_, f)) in fields.iter().enumerate() {
                    self.decode(f, start as usize + i)?;
                    if let Some(fr) = self.frames.last_mut() {
                        fr.done = i as u32 + 1;
                    }
                }
                self.frames.pop();
                Val::Kids {
                    start,
                    len: fields.len() as u32,
                }
            }
            Type::Array { elem, len } => {
                let n = match len {
                    Len::Fixed(n) => *n,
                    Len::Field(path) => match self.lookup(path).map(|(_, s)| self.vals[s as usize])
                    {
                        Some(Val::U(n)) => n,
                        Some(Val::I(n)) if n >= 0 => n as u64,
                        _ => {
                            return Err(self.err(format!(
                                "sequence length `{}` is not a decoded unsigned integer",
                                path.join(".")
                            )))
                        }
                    },
                };
                self.align(elem.align())?;
                if let Type::Int(t) = &**elem {
                    if t.text && t.size == 8 && self.pos.is_multiple_of(8) {
                        let s = (self.pos / 8) as usize;
                        if self.pos + n * 8 > self.end {
                            return Err(self.err(format!(
                                "a text array of {n} bytes runs past the packet content"
                            )));
                        }
                        let bytes = &self.data[s..s + n as usize];
                        let text = memchr::memchr(0, bytes).map_or(bytes, |z| &bytes[..z]);
                        self.pos += n * 8;
                        self.vals[slot] = Val::Str(text);
                        return Ok(());
                    }
                }
                if n > self.end - self.pos + 1 {
                    return Err(self.err(format!(
                        "an array of {n} elements cannot fit the packet content"
                    )));
                }
                let start = self.reserve(n)?;
                for i in 0..n as usize {
                    self.decode(elem, start as usize + i)?;
                }
                Val::Kids {
                    start,
                    len: n as u32,
                }
            }
            Type::Variant { tag, options } => {
                let label = self.tag_label(tag)?;
                let Some(opt) = options.iter().position(|(n, _)| same_name(n, label)) else {
                    return Err(self.err(format!(
                        "variant tag `{}` selects `{label}`, which is not an option",
                        tag.join(".")
                    )));
                };
                let s = self.reserve(1)?;
                self.decode(&options[opt].1, s as usize)?;
                Val::Var {
                    opt: opt as u32,
                    slot: s,
                }
            }
        };
        self.vals[slot] = v;
        Ok(())
    }

    fn tag_label(&self, tag: &[String]) -> Result<&'t str, DecodeError> {
        let Some((ty, slot)) = self.lookup(tag) else {
            return Err(self.err(format!(
                "variant tag `{}` is not a decoded field",
                tag.join(".")
            )));
        };
        let Type::Enum { entries, .. } = ty else {
            return Err(self.err(format!("variant tag `{}` is not an enum", tag.join("."))));
        };
        let v = match self.vals[slot as usize] {
            Val::U(u) => i128::from(u),
            Val::I(i) => i128::from(i),
            _ => return Err(self.err("variant tag has no value")),
        };
        entries
            .iter()
            .find(|(_, lo, hi)| (*lo..=*hi).contains(&v))
            .map(|(n, _, _)| n.as_str())
            .ok_or_else(|| {
                self.err(format!(
                    "variant tag `{}` value {v} has no enum label",
                    tag.join(".")
                ))
            })
    }

    /// The member `name` of the compound at `slot` (through a variant's selection).
    pub fn child(&self, ty: &'t Type, slot: u32, name: &str) -> Option<(&'t Type, u32)> {
        match (ty, self.vals.get(slot as usize)?) {
            (Type::Struct { fields, .. }, Val::Kids { start, .. }) => {
                let i = ty.field_index(name)?;
                Some((&*fields[i].1, start + i as u32))
            }
            (Type::Variant { options, .. }, Val::Var { opt, slot }) => {
                self.child(&options[*opt as usize].1, *slot, name)
            }
            _ => None,
        }
    }

    fn descend(&self, mut at: (&'t Type, u32), rest: &[String]) -> Option<(&'t Type, u32)> {
        for name in rest {
            at = self.child(at.0, at.1, name)?;
        }
        Some(at)
    }

    /// Finds an already-decoded field by path.
    pub fn lookup(&self, path: &[String]) -> Option<(&'t Type, u32)> {
        for (k, names) in SCOPE_NAMES.iter().enumerate() {
            if path.len() > names.len() && path.iter().zip(names.iter()).all(|(a, b)| a == b) {
                return self.descend(self.scopes[k]?, &path[names.len()..]);
            }
        }
        let first = path.first()?;
        for fr in self.frames.iter().rev() {
            if let Type::Struct { fields, .. } = fr.ty {
                for i in (0..fr.done as usize).rev() {
                    if same_name(&fields[i].0, first) {
                        return self.descend((&*fields[i].1, fr.base + i as u32), &path[1..]);
                    }
                }
            }
        }
        for scope in self.scopes.iter().rev().flatten() {
            if let Some(at) = self.child(scope.0, scope.1, first) {
                return self.descend(at, &path[1..]);
            }
        }
        None
    }

    /// The last field named `name` anywhere in the compound at `at`, in decoding
    /// order (so `v.extended.id` wins over the compact header's `id`).
    pub fn find_last(&self, at: (&'t Type, u32), name: &str) -> Option<(&'t Type, u32)> {
        let (ty, slot) = at;
        match (ty, self.vals.get(slot as usize)?) {
            (Type::Struct { fields, .. }, Val::Kids { start, .. }) => {
                let mut found = None;
                for (i, (n, f)) in fields.iter().enumerate() {
                    let here = (&**f, start + i as u32);
                    if same_name(n, name) {
                        found = Some(here);
                    }
                    if let Some(deeper) = self.find_last(here, name) {
                        found = Some(deeper);
                    }
                }
                found
            }
            (Type::Variant { options, .. }, Val::Var { opt, slot }) => {
                self.find_last((&*options[*opt as usize].1, *slot), name)
            }
            _ => None,
        }
    }

    pub fn uint(&self, slot: u32) -> Option<u64> {
        match self.vals.get(slot as usize)? {
            Val::U(u) => Some(*u),
            Val::I(i) => Some(*i as u64),
            _ => None,
        }
    }

    pub fn int_value(&self, slot: u32) -> Option<i64> {
        match self.vals.get(slot as usize)? {
            Val::U(u) => Some(*u as i64),
            Val::I(i) => Some(*i),
            _ => None,
        }
    }
}
