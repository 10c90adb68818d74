//! The CTF 1.8 type system and trace description that the TSDL parser builds.

use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    Le,
    Be,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IntType {
    /// Bits.
    pub size: u32,
    /// Bits.
    pub align: u32,
    pub signed: bool,
    /// `None`: the trace's byte order.
    pub byte_order: Option<ByteOrder>,
    /// 2, 8, 10 or 16 (display only).
    pub base: u32,
    /// `encoding = UTF8/ASCII`: arrays of it are text.
    pub text: bool,
    /// `map = clock.NAME.value`.
    pub clock: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Len {
    Fixed(u64),
    /// A sequence: the length is the value of the field at this path.
    Field(Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Int(IntType),
    Float {
        size: u32,
        align: u32,
        byte_order: Option<ByteOrder>,
    },
    Str,
    Struct {
        fields: Vec<(String, Arc<Type>)>,
        align: u32,
    },
    /// Labels with inclusive value ranges.
    Enum {
        int: IntType,
        entries: Vec<(String, i128, i128)>,
    },
    /// Options selected by the enum field at `tag`.
    Variant {
        tag: Vec<String>,
        options: Vec<(String, Arc<Type>)>,
    },
    Array {
        elem: Arc<Type>,
        len: Len,
    },
}

impl Type {
    /// Alignment in bits (a variant's is its selected option's; 1 here).
    pub fn align(&self) -> u32 {
        match self {
            Type::Int(i) | Type::Enum { int: i, .. } => i.align.max(1),
            Type::Float { align, .. } => (*align).max(1),
            Type::Str => 8,
            Type::Struct { fields, align } => fields
                .iter()
                .map(|(_, t)| t.align())
                .fold((*align).max(1), u32::max),
            Type::Variant { .. } => 1,
            Type::Array { elem, .. } => elem.align(),
        }
    }

    /// The struct's field named `name` (a leading `_` is ignored on both sides, as
    /// TSDL uses it to escape names).
    pub fn field_index(&self, name: &str) -> Option<usize> {
        let Type::Struct { fields, .. } = self else {
            return None;
        };
        fields.iter().position(|(n, _)| same_name(n, name))
    }
}

/// Names equal up to one leading underscore (TSDL's escape for reserved words).
pub fn same_name(a: &str, b: &str) -> bool {
    a == b
        || a.strip_prefix('_') == Some(b)
        || b.strip_prefix('_') == Some(a)
        || a.strip_prefix('_')
            .is_some_and(|x| b.strip_prefix('_') == Some(x))
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    pub name: String,
    pub freq: u64,
    pub offset_s: i64,
    pub offset: i64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            name: String::new(),
            freq: 1_000_000_000,
            offset_s: 0,
            offset: 0,
        }
    }
}

impl Clock {
    /// Nanoseconds of a clock value (cycles since the clock's origin plus offset).
    pub fn to_ns(&self, cycles: u64) -> i64 {
        let freq = i128::from(self.freq.max(1));
        let c = i128::from(self.offset) + i128::from(cycles);
        let ns = i128::from(self.offset_s) * 1_000_000_000
            + if freq == 1_000_000_000 {
                c
            } else {
                c * 1_000_000_000 / freq
            };
        ns.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamClass {
    pub id: u64,
    pub packet_context: Option<Arc<Type>>,
    pub event_header: Option<Arc<Type>>,
    pub event_context: Option<Arc<Type>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EventClass {
    pub id: u64,
    pub name: String,
    pub stream_id: u64,
    pub context: Option<Arc<Type>>,
    pub fields: Option<Arc<Type>>,
}

/// Everything the metadata says.
#[derive(Clone, Debug, PartialEq)]
pub struct Metadata {
    pub byte_order: ByteOrder,
    pub uuid: Option<String>,
    pub packet_header: Option<Arc<Type>>,
    pub env: Vec<(String, String)>,
    pub clocks: Vec<Clock>,
    pub streams: Vec<StreamClass>,
    pub events: Vec<EventClass>,
}

impl Metadata {
    pub fn env(&self, key: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn clock(&self, name: Option<&str>) -> Option<&Clock> {
        match name {
            Some(n) => self
                .clocks
                .iter()
                .find(|c| c.name == n)
                .or(self.clocks.first()),
            None => self.clocks.first(),
        }
    }
}
