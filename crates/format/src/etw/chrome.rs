//! Chrome's compact event model (`docs/architecture.md`, "Binary encodings"): the 15
//! event types, the ETW opcode byte and one decoded payload.

use std::borrow::Cow;

/// The 15 Chrome event types, numbered as Chrome's ETW events number them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum ChromeType {
    Begin = 1,
    Instant = 2,
    End = 3,
    FlowBegin = 4,
    FlowStep = 5,
    FlowEnd = 6,
    AsyncBegin = 7,
    AsyncStep = 8,
    AsyncEnd = 9,
    CreateObject = 10,
    SnapshotObject = 11,
    DeleteObject = 12,
    Metadata = 13,
    Counter = 14,
    Sample = 15,
}

impl ChromeType {
    pub const ALL: [ChromeType; 15] = [
        ChromeType::Begin,
        ChromeType::Instant,
        ChromeType::End,
        ChromeType::FlowBegin,
        ChromeType::FlowStep,
        ChromeType::FlowEnd,
        ChromeType::AsyncBegin,
        ChromeType::AsyncStep,
        ChromeType::AsyncEnd,
        ChromeType::CreateObject,
        ChromeType::SnapshotObject,
        ChromeType::DeleteObject,
        ChromeType::Metadata,
        ChromeType::Counter,
        ChromeType::Sample,
    ];

    pub fn from_u8(n: u8) -> Option<ChromeType> {
        Self::ALL.get(usize::from(n).checked_sub(1)?).copied()
    }

    /// The type's name without the `Chrome` prefix (`"Begin"`, `"FlowStep"`).
    pub fn name(self) -> &'static str {
        match self {
            ChromeType::Begin => "Begin",
            ChromeType::Instant => "Instant",
            ChromeType::End => "End",
            ChromeType::FlowBegin => "FlowBegin",
            ChromeType::FlowStep => "FlowStep",
            ChromeType::FlowEnd => "FlowEnd",
            ChromeType::AsyncBegin => "AsyncBegin",
            ChromeType::AsyncStep => "AsyncStep",
            ChromeType::AsyncEnd => "AsyncEnd",
            ChromeType::CreateObject => "CreateObject",
            ChromeType::SnapshotObject => "SnapshotObject",
            ChromeType::DeleteObject => "DeleteObject",
            ChromeType::Metadata => "Metadata",
            ChromeType::Counter => "Counter",
            ChromeType::Sample => "Sample",
        }
    }

    pub fn from_name(name: &str) -> Option<ChromeType> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The JSON phase this type stands for when no `@ph` argument says otherwise.
    /// Instant is `I`, the phase Chrome's own `trace_event_common.h` writes.
    pub fn phase(self) -> &'static str {
        match self {
            ChromeType::Begin => "B",
            ChromeType::Instant => "I",
            ChromeType::End => "E",
            ChromeType::FlowBegin => "s",
            ChromeType::FlowStep => "t",
            ChromeType::FlowEnd => "f",
            ChromeType::AsyncBegin => "S",
            ChromeType::AsyncStep => "T",
            ChromeType::AsyncEnd => "F",
            ChromeType::CreateObject => "N",
            ChromeType::SnapshotObject => "O",
            ChromeType::DeleteObject => "D",
            ChromeType::Metadata => "M",
            ChromeType::Counter => "C",
            ChromeType::Sample => "P",
        }
    }

    /// The type a JSON phase is carried as, and whether the phase is that type's own
    /// (if not, the phase rides in the `@ph` argument). `X` is not here: it becomes a
    /// Begin/End pair (see the mapping).
    pub fn for_phase(ph: &str) -> (ChromeType, bool) {
        let canonical = match ph {
            "B" => Some(ChromeType::Begin),
            "I" => Some(ChromeType::Instant),
            "E" => Some(ChromeType::End),
            "s" => Some(ChromeType::FlowBegin),
            "t" => Some(ChromeType::FlowStep),
            "f" => Some(ChromeType::FlowEnd),
            "S" => Some(ChromeType::AsyncBegin),
            "T" => Some(ChromeType::AsyncStep),
            "F" => Some(ChromeType::AsyncEnd),
            "N" => Some(ChromeType::CreateObject),
            "O" => Some(ChromeType::SnapshotObject),
            "D" => Some(ChromeType::DeleteObject),
            "M" => Some(ChromeType::Metadata),
            "C" => Some(ChromeType::Counter),
            "P" => Some(ChromeType::Sample),
            _ => None,
        };
        if let Some(t) = canonical {
            return (t, true);
        }
        // Phases without a type of their own go to the closest family.
        let t = match ph {
            "b" => ChromeType::AsyncBegin,
            "n" | "p" => ChromeType::AsyncStep,
            "e" => ChromeType::AsyncEnd,
            "X" => ChromeType::Begin,
            _ => ChromeType::Instant,
        };
        (t, false)
    }
}

/// Pointer width of the stack addresses in a payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bitness {
    B32,
    #[default]
    B64,
}

impl Bitness {
    pub fn bytes(self) -> usize {
        match self {
            Bitness::B32 => 4,
            Bitness::B64 => 8,
        }
    }

    pub fn max_address(self) -> u64 {
        match self {
            Bitness::B32 => u32::MAX as u64,
            Bitness::B64 => u64::MAX,
        }
    }
}

/// The most arguments an opcode can count (3 bits).
pub const MAX_ARGS: usize = 7;

/// The ETW opcode byte: type in the 4 most significant bits, 0x08 when the payload
/// ends with a stack, number of arguments in the 3 least significant bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opcode(pub u8);

impl Opcode {
    pub const STACK_BIT: u8 = 0x08;

    /// `None` when `args` exceeds [`MAX_ARGS`].
    pub fn new(ty: ChromeType, has_stack: bool, args: usize) -> Option<Opcode> {
        if args > MAX_ARGS {
            return None;
        }
        Some(Opcode(
            ((ty as u8) << 4) | if has_stack { Self::STACK_BIT } else { 0 } | args as u8,
        ))
    }

    /// The type, `None` for the unused values 0.
    pub fn ty(self) -> Option<ChromeType> {
        ChromeType::from_u8(self.0 >> 4)
    }

    pub fn has_stack(self) -> bool {
        self.0 & Self::STACK_BIT != 0
    }

    pub fn args(self) -> usize {
        usize::from(self.0 & 0x07)
    }
}

/// One Chrome event in that model: what an ETW payload or a CTF event's
/// fields hold. Strings borrow from the input when they can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChromePayload<'a> {
    pub ty: ChromeType,
    pub name: Cow<'a, str>,
    pub id: u64,
    /// Comma-separated.
    pub categories: Cow<'a, str>,
    /// Name/value pairs, at most [`MAX_ARGS`] for ETW.
    pub args: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// Stack addresses, innermost first, as the producer wrote them.
    pub stack: Option<Vec<u64>>,
}

impl ChromePayload<'_> {
    pub fn opcode(&self) -> Option<Opcode> {
        Opcode::new(self.ty, self.stack.is_some(), self.args.len())
    }

    pub fn into_owned(self) -> ChromePayload<'static> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        ChromePayload {
            ty: self.ty,
            name: own(self.name),
            id: self.id,
            categories: own(self.categories),
            args: self
                .args
                .into_iter()
                .map(|(k, v)| (own(k), own(v)))
                .collect(),
            stack: self.stack,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_bits() {
        for ty in ChromeType::ALL {
            for stack in [false, true] {
                for n in 0..=MAX_ARGS {
                    let op = Opcode::new(ty, stack, n).unwrap();
                    assert_eq!((op.ty(), op.has_stack(), op.args()), (Some(ty), stack, n));
                }
            }
            assert_eq!(ChromeType::from_name(ty.name()), Some(ty));
            assert_eq!(ChromeType::for_phase(ty.phase()), (ty, true));
        }
        assert_eq!(Opcode::new(ChromeType::Begin, true, 2), Some(Opcode(0x1A)));
        assert_eq!(
            Opcode::new(ChromeType::Sample, false, 7),
            Some(Opcode(0xF7))
        );
        assert_eq!(Opcode::new(ChromeType::Begin, false, 8), None);
        assert_eq!(Opcode(0x05).ty(), None);
        assert_eq!(ChromeType::from_u8(0), None);
        assert_eq!(ChromeType::from_u8(16), None);
    }
}
