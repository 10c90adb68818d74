//! A slice's `args` in 6 bytes: a [`TextRef`] is 12 (a 64-bit start and a 32-bit
//! length), and the slice table has one on every row.
//!
//! Args text in an input file lies inside its event's object, and the row keeps
//! the event's offset: a cell keeps where the args start after it (up to 64 KiB)
//! and their length (under 512 MiB). The encoded args of a CTF record
//! ([`TextRef::is_ctf`]) lie in the record too, after its name and categories:
//! they are kept the same way, with a bit of their own. Args in the arena (events
//! that did not come from JSON text: ETW, the recorder, other CTF) are short: a
//! cell keeps where they start in the arena (up to 8 GiB) and their length (under
//! 16 KiB). Nothing is rounded: args that fit neither (or any other `TextRef`) are
//! kept whole in a [`Sparse`] beside the column, their cell [`ArgsCell::WIDE`].

use super::sparse::Sparse;
use crate::args::TextRef;

/// 48 bits, read as [`ArgsCell::bits`]: 0 is [`TextRef::NONE`]; with bit 47
/// clear, args in the input: bit 46 [`TextRef::is_compact`], bit 45
/// [`TextRef::is_ctf`], bits 29..45 where they start after the event's offset,
/// bits 0..29 their length (not 0); with bit 47
/// set, text in the arena: bits 14..47 where it starts, bits 0..14 its length (not
/// 0, which marks [`ArgsCell::WIDE`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, packed)]
pub(crate) struct ArgsCell {
    low: u32,
    high: u16,
}

const IN_ARENA: u64 = 1 << 47;
const COMPACT: u64 = 1 << 46;
const CTF: u64 = 1 << 45;
const INPUT_LEN_BITS: u32 = 29;
const AFTER_BITS: u32 = 16;
const ARENA_LEN_BITS: u32 = 14;
const ARENA_AT_BITS: u32 = 33;

const fn mask(bits: u32) -> u64 {
    (1 << bits) - 1
}

impl ArgsCell {
    /// The cell of args kept whole beside the column (arena text of length 0,
    /// which no `TextRef` of the arena is packed as).
    pub const WIDE: ArgsCell = ArgsCell::of_bits(IN_ARENA);

    const fn of_bits(v: u64) -> ArgsCell {
        ArgsCell {
            low: v as u32,
            high: (v >> 32) as u16,
        }
    }

    fn bits(self) -> u64 {
        (u64::from(self.high) << 32) | u64::from(self.low)
    }

    /// The cell of `args` of the event at `offset`, if they fit one (never `WIDE`).
    pub fn pack(args: TextRef, offset: u64) -> Option<ArgsCell> {
        if args == TextRef::NONE {
            return Some(ArgsCell::of_bits(0));
        }
        let len = u64::from(args.len);
        if len == 0 {
            return None;
        }
        let bits = if args.is_arena() {
            let at = args.offset();
            let fits =
                !args.is_compact() && len <= mask(ARENA_LEN_BITS) && at <= mask(ARENA_AT_BITS);
            fits.then_some(IN_ARENA | (at << ARENA_LEN_BITS) | len)?
        } else {
            let after = args.offset().checked_sub(offset)?;
            let compact = if args.is_compact() { COMPACT } else { 0 };
            let ctf = if args.is_ctf() { CTF } else { 0 };
            let fits = after <= mask(AFTER_BITS) && len <= mask(INPUT_LEN_BITS);
            fits.then_some(compact | ctf | (after << INPUT_LEN_BITS) | len)?
        };
        Some(ArgsCell::of_bits(bits))
    }

    /// The args of a cell other than `WIDE`, of the event at `offset` (asked only
    /// for text in the input).
    pub fn unpack(self, offset: impl FnOnce() -> u64) -> TextRef {
        let v = self.bits();
        if v == 0 {
            TextRef::NONE
        } else if v & IN_ARENA != 0 {
            TextRef::in_arena(
                (v >> ARENA_LEN_BITS) & mask(ARENA_AT_BITS),
                (v & mask(ARENA_LEN_BITS)) as u32,
            )
        } else {
            let at = offset() + ((v >> INPUT_LEN_BITS) & mask(AFTER_BITS));
            let len = (v & mask(INPUT_LEN_BITS)) as u32;
            let r = if v & CTF != 0 {
                TextRef::in_ctf(at, len)
            } else {
                TextRef { start: at, len }
            };
            if v & COMPACT != 0 {
                r.known_compact()
            } else {
                r
            }
        }
    }
}

/// The cell of `args` of the event at `offset`, or `WIDE` with (`row`, `args`)
/// added to `wide`.
pub(crate) fn args_cell(
    args: TextRef,
    offset: u64,
    row: u32,
    wide: &mut Vec<(u32, TextRef)>,
) -> ArgsCell {
    ArgsCell::pack(args, offset).unwrap_or_else(|| {
        wide.push((row, args));
        ArgsCell::WIDE
    })
}

/// A column of [`ArgsCell`]s and the args that did not fit.
#[derive(Clone, Debug, Default)]
pub(crate) struct ArgsColumn {
    pub cells: Vec<ArgsCell>,
    pub wide: Sparse<TextRef>,
}

impl ArgsColumn {
    /// The args of row `i`, whose event is at `offset` (asked only for text in
    /// the input).
    pub fn get(&self, i: usize, offset: impl FnOnce() -> u64) -> TextRef {
        let c = self.cells[i];
        if c == ArgsCell::WIDE {
            match self.wide.get(i) {
                Some(v) => v,
                None => unreachable!("a wide cell's args are kept"),
            }
        } else {
            c.unpack(offset)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (args, offset) reads back as written; returns how many were kept
    /// whole.
    fn round_trip(rows: &[(TextRef, u64)]) -> usize {
        let mut wide = Vec::new();
        let cells = rows
            .iter()
            .enumerate()
            .map(|(i, &(a, off))| args_cell(a, off, i as u32, &mut wide))
            .collect();
        let n = wide.len();
        let col = ArgsColumn {
            cells,
            wide: Sparse::from_pairs(wide),
        };
        for (i, &(a, off)) in rows.iter().enumerate() {
            assert_eq!(col.get(i, || off), a, "row {i}");
        }
        n
    }

    fn input(start: u64, len: u32) -> TextRef {
        TextRef { start, len }
    }

    fn arena(at: u64, len: u32) -> TextRef {
        TextRef::in_arena(at, len)
    }

    #[test]
    fn args_that_do_not_fit_are_kept_whole() {
        let off = 1 << 39;
        let packed = [
            (TextRef::NONE, 0),
            (TextRef::NONE, off),
            (input(off, 1), off),
            (input(off + 65_535, (1 << 29) - 1), off),
            (input(off + 7, 2).known_compact(), off),
            (TextRef::in_ctf(off + 40, 9), off),
            (TextRef::in_ctf(off + 65_535, (1 << 29) - 1), off),
            (
                input(u64::MAX >> 3, (1 << 29) - 1),
                (u64::MAX >> 3) - 65_535,
            ),
            (arena(0, 1), off),
            (arena((1 << 33) - 1, (1 << 14) - 1), 0),
        ];
        assert_eq!(round_trip(&packed), 0);
        let whole = [
            // Too far after the event, before it, too long.
            (input(off + 65_536, 2), off),
            (input(off - 1, 2), off),
            (input(off, 1 << 29), off),
            (input(off, u32::MAX), off),
            // CTF args too far after the record, before it, too long.
            (TextRef::in_ctf(off + 65_536, 2), off),
            (TextRef::in_ctf(off - 1, 2), off),
            (TextRef::in_ctf(off, 1 << 29), off),
            // Empty but not `NONE`.
            (input(off, 0), off),
            (arena(5, 0), off),
            // Arena text too far, too long, or marked compact.
            (arena(1 << 33, 2), 0),
            (arena(0, 1 << 14), 0),
            (arena(3, 2).known_compact(), 0),
        ];
        assert_eq!(round_trip(&whole), whole.len());
        assert_eq!(std::mem::size_of::<ArgsCell>(), 6);
    }

    proptest::proptest! {
        /// Any args of any event, near the cells' limits or anywhere, read back
        /// exactly.
        #[test]
        fn any_args_read_back(
            rows in proptest::collection::vec(
                (
                    proptest::prop_oneof![
                        0u64..70_000,
                        (1u64 << 33) - 3..(1u64 << 33) + 3,
                        proptest::num::u64::ANY,
                    ],
                    proptest::prop_oneof![
                        0u32..4,
                        (1u32 << 14) - 2..(1u32 << 14) + 2,
                        (1u32 << 29) - 2..(1u32 << 29) + 2,
                        (1u32 << 30) - 2..(1u32 << 30) + 2,
                        proptest::num::u32::ANY,
                    ],
                    0u64..1 << 41,
                    proptest::bool::ANY,
                    proptest::bool::ANY,
                ),
                0..64,
            )
        ) {
            let rows: Vec<(TextRef, u64)> = rows
                .into_iter()
                .map(|(start, len, offset, near, ctf)| {
                    // Near: input text a little after the event's offset.
                    let start = if near && start < 70_000 { offset + start } else { start };
                    let r = if ctf {
                        TextRef::in_ctf(start & ((1 << 61) - 1), len)
                    } else {
                        TextRef { start, len }
                    };
                    (r, offset)
                })
                .collect();
            round_trip(&rows);
        }
    }
}
