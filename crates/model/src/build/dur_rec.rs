//! The record of a duration event (`B`, `E`, `X`), packed to 48 bytes.
//!
//! These are most of the records a load holds (3.6 M a GB of trace): the parts
//! push them and they are kept until the slice step has built the slice table.
//! At 72 bytes they took 260 MB at 1 GB, in fresh pages the kernel zeroes first.
//! Packed, a record keeps the event's offset in 40 bits next to its kind and how
//! its args are kept, `dur` and `tdur` in 32 bits, and its args as where they
//! start after the event's offset (args text in the input is inside the event's
//! object, and a CTF record's encoded args inside the record) or in the arena,
//! and their length.
//!
//! Nothing is rounded: a record whose values do not fit (a `cname`, an offset of
//! 1 TiB or more, a `dur` or `tdur` negative or of `u32::MAX` ns (4.3 s) or more,
//! input args 256 KiB or more after the event's start or before it, arena args
//! of 64 KiB or more or past 16 GiB) keeps them in a [`DurWide`] entry of the side
//! table that goes with its list ([`DurRecs`]), and its offset bits index it. The
//! traces seen so far have none (the generated 1 GB trace, JSON or CTF, and the
//! corpus).

use std::ops::Deref;

use crate::args::TextRef;
use crate::strings::StrId;
use crate::tables::{Ns, ThreadId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurKind {
    B,
    E,
    X,
    /// `B` with a `ui-nest` arg.
    UiB,
    /// `E` with a `ui-nest` arg.
    UiE,
}

impl DurKind {
    /// In the order of their discriminants (a record keeps `kind as u64`).
    const ALL: [DurKind; 5] = [
        DurKind::B,
        DurKind::E,
        DurKind::X,
        DurKind::UiB,
        DurKind::UiE,
    ];
}

/// Every field of a duration record, unpacked: what a part makes of an event
/// ([`DurRecs::push`]) and what [`DurRec::fields`] gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurFields {
    pub offset: u64,
    pub ts: i64,
    /// `X` duration.
    pub dur: Option<Ns>,
    pub tts: Option<Ns>,
    pub tdur: Option<Ns>,
    pub thread: ThreadId,
    pub name: StrId,
    pub cat: StrId,
    pub kind: DurKind,
    pub args: TextRef,
    pub cname: StrId,
}

/// A duration record (see the module's doc). `ts`, `tts`, `thread`, `name` and
/// `cat` are kept as they are; the other fields are read with the methods, which
/// take the side table of the record's list for the wide ones.
#[derive(Clone, Copy, Debug)]
pub struct DurRec {
    /// Bits 0..40: the event's offset, or the index of a wide record's
    /// [`DurWide`]; 40..43: the [`DurKind`]; 43..46: how the args are kept (an
    /// `ARGS_*` mode, or `WIDE`); 46..64: the high bits of the args.
    head: u64,
    pub ts: i64,
    pub tts: Option<Ns>,
    /// `X` duration in ns (`NO_SPAN`: none).
    dur: u32,
    tdur: u32,
    pub thread: ThreadId,
    pub name: StrId,
    pub cat: StrId,
    /// The low bits of the args.
    args_lo: u32,
}

const _: () = assert!(std::mem::size_of::<DurRec>() == 48);

/// The fields of a wide record that do not fit its packed form, as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurWide {
    pub offset: u64,
    pub dur: Option<Ns>,
    pub tdur: Option<Ns>,
    pub args: TextRef,
    pub cname: StrId,
}

const OFFSET_BITS: u32 = 40;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
const KIND_SHIFT: u32 = OFFSET_BITS;
const MODE_SHIFT: u32 = KIND_SHIFT + 3;
const ARGS_HIGH_SHIFT: u32 = MODE_SHIFT + 3;
/// The args are packed in 50 bits: the 18 high bits of `head` above `args_lo`.
const ARGS_BITS: u32 = 64 - ARGS_HIGH_SHIFT + 32;

// How a record keeps its args (bits 43..46 of `head`), and what their 50 bits
// hold.
/// No args (`TextRef::NONE`).
const ARGS_NONE: u64 = 0;
/// Text in the input, `after << 32 | len`: from `after` bytes after the event's
/// offset on (the args are inside the event's object).
const ARGS_INPUT: u64 = 1;
/// [`ARGS_INPUT`] of text the load found compact ([`TextRef::is_compact`]).
const ARGS_INPUT_COMPACT: u64 = 2;
/// Text in the arena, `at << ARENA_LEN_BITS | len`.
const ARGS_ARENA: u64 = 3;
/// Not packed: bits 0..40 index the record's [`DurWide`].
const WIDE: u64 = 4;
/// The encoded args of a CTF record ([`TextRef::is_ctf`]), kept as
/// [`ARGS_INPUT`]: they lie in the record, after its offset.
const ARGS_CTF: u64 = 5;

/// Bits of the length of arena args (a binary event's args are short); the rest
/// hold where they start (up to 16 GiB into the arena).
const ARENA_LEN_BITS: u32 = 16;

/// `dur` or `tdur` absent.
const NO_SPAN: u32 = u32::MAX;

fn pack_span(span: Option<Ns>) -> Option<u32> {
    match span {
        None => Some(NO_SPAN),
        Some(ns) => u32::try_from(ns.get()).ok().filter(|&v| v != NO_SPAN),
    }
}

fn unpack_span(span: u32) -> Option<Ns> {
    (span != NO_SPAN).then(|| Ns::new(i64::from(span)))
}

/// The mode and the 50 bits of `args` in the record of the event at `offset`,
/// if they fit.
fn pack_args(args: TextRef, offset: u64) -> Option<(u64, u64)> {
    if args == TextRef::NONE {
        return Some((ARGS_NONE, 0));
    }
    let len = u64::from(args.len);
    if args.is_arena() {
        let at = args.offset();
        let fits = !args.is_compact()
            && len < 1 << ARENA_LEN_BITS
            && at < 1 << (ARGS_BITS - ARENA_LEN_BITS);
        return fits.then_some((ARGS_ARENA, (at << ARENA_LEN_BITS) | len));
    }
    let after = args.offset().checked_sub(offset)?;
    let mode = match (args.is_ctf(), args.is_compact()) {
        (false, true) => ARGS_INPUT_COMPACT,
        (false, false) => ARGS_INPUT,
        (true, false) => ARGS_CTF,
        (true, true) => return None,
    };
    (after < 1 << (ARGS_BITS - 32)).then_some((mode, (after << 32) | len))
}

fn unpack_args(mode: u64, bits: u64, offset: u64) -> TextRef {
    match mode {
        ARGS_NONE => TextRef::NONE,
        ARGS_ARENA => TextRef::in_arena(
            bits >> ARENA_LEN_BITS,
            (bits & ((1 << ARENA_LEN_BITS) - 1)) as u32,
        ),
        ARGS_CTF => TextRef::in_ctf(offset + (bits >> 32), bits as u32),
        _ => {
            let r = TextRef {
                start: offset + (bits >> 32),
                len: bits as u32,
            };
            if mode == ARGS_INPUT_COMPACT {
                r.known_compact()
            } else {
                r
            }
        }
    }
}

/// The `dur`, `tdur`, args mode and args bits of a record of `f`, if they fit.
fn pack_fields(f: &DurFields) -> Option<(u32, u32, (u64, u64))> {
    if !f.cname.is_none() || f.offset > OFFSET_MASK {
        return None;
    }
    Some((
        pack_span(f.dur)?,
        pack_span(f.tdur)?,
        pack_args(f.args, f.offset)?,
    ))
}

impl DurWide {
    fn of(f: &DurFields) -> DurWide {
        DurWide {
            offset: f.offset,
            dur: f.dur,
            tdur: f.tdur,
            args: f.args,
            cname: f.cname,
        }
    }
}

impl DurRec {
    /// The record of `f`: packed, or wide with its [`DurWide`] pushed to `wide`.
    pub fn pack(f: DurFields, wide: &mut Vec<DurWide>) -> DurRec {
        let Some((dur, tdur, (mode, args))) = pack_fields(&f) else {
            let r = DurRec::wide(&f, wide.len());
            wide.push(DurWide::of(&f));
            return r;
        };
        DurRec {
            head: f.offset
                | ((f.kind as u64) << KIND_SHIFT)
                | (mode << MODE_SHIFT)
                | ((args >> 32) << ARGS_HIGH_SHIFT),
            ts: f.ts,
            tts: f.tts,
            dur,
            tdur,
            thread: f.thread,
            name: f.name,
            cat: f.cat,
            args_lo: args as u32,
        }
    }

    /// The wide record of `f`, its [`DurWide`] at `index` of its side table.
    fn wide(f: &DurFields, index: usize) -> DurRec {
        DurRec {
            head: ((f.kind as u64) << KIND_SHIFT) | (WIDE << MODE_SHIFT),
            ts: f.ts,
            tts: f.tts,
            dur: NO_SPAN,
            tdur: NO_SPAN,
            thread: f.thread,
            name: f.name,
            cat: f.cat,
            args_lo: 0,
        }
        .wide_at(index)
    }

    /// A wide record pointed at `index` of its side table.
    fn wide_at(self, index: usize) -> DurRec {
        let index = index as u64;
        assert!(index <= OFFSET_MASK, "wide duration records fit 40 bits");
        DurRec {
            head: (self.head & !OFFSET_MASK) | index,
            ..self
        }
    }

    /// Every field, as packed (`wide`: the side table of the record's list).
    pub fn fields(&self, wide: &[DurWide]) -> DurFields {
        DurFields {
            offset: self.offset(wide),
            ts: self.ts,
            dur: self.dur(wide),
            tts: self.tts,
            tdur: self.tdur(wide),
            thread: self.thread,
            name: self.name,
            cat: self.cat,
            kind: self.kind(),
            args: self.args(wide),
            cname: self.cname(wide),
        }
    }

    fn mode(&self) -> u64 {
        (self.head >> MODE_SHIFT) & 0b111
    }

    /// Whether the record keeps its offset, durations, args and `cname` in a
    /// [`DurWide`].
    pub fn is_wide(&self) -> bool {
        self.mode() == WIDE
    }

    /// The index of a wide record's [`DurWide`].
    fn wide_index(&self) -> Option<usize> {
        self.is_wide().then_some((self.head & OFFSET_MASK) as usize)
    }

    pub fn kind(&self) -> DurKind {
        DurKind::ALL[((self.head >> KIND_SHIFT) & 0b111) as usize]
    }

    /// The event's byte offset.
    pub fn offset(&self, wide: &[DurWide]) -> u64 {
        match self.wide_index() {
            Some(i) => wide[i].offset,
            None => self.head & OFFSET_MASK,
        }
    }

    /// `X` duration.
    pub fn dur(&self, wide: &[DurWide]) -> Option<Ns> {
        match self.wide_index() {
            Some(i) => wide[i].dur,
            None => unpack_span(self.dur),
        }
    }

    pub fn tdur(&self, wide: &[DurWide]) -> Option<Ns> {
        match self.wide_index() {
            Some(i) => wide[i].tdur,
            None => unpack_span(self.tdur),
        }
    }

    pub fn args(&self, wide: &[DurWide]) -> TextRef {
        match self.wide_index() {
            Some(i) => wide[i].args,
            None => unpack_args(
                self.mode(),
                ((self.head >> ARGS_HIGH_SHIFT) << 32) | u64::from(self.args_lo),
                self.head & OFFSET_MASK,
            ),
        }
    }

    pub fn cname(&self, wide: &[DurWide]) -> StrId {
        match self.wide_index() {
            Some(i) => wide[i].cname,
            None => StrId::NONE,
        }
    }

    /// The record once its list's side table is put after `base` other entries.
    pub fn with_wide_base(self, base: usize) -> DurRec {
        match self.wide_index() {
            Some(i) => self.wide_at(base + i),
            None => self,
        }
    }

    /// Changes the record's fields: a wide one keeps its entry of `wide`, a packed
    /// one is packed again (wide if the new values do not fit).
    pub fn update(&mut self, wide: &mut Vec<DurWide>, change: impl FnOnce(&mut DurFields)) {
        let mut f = self.fields(wide);
        change(&mut f);
        match self.wide_index() {
            Some(i) => {
                *self = DurRec::wide(&f, i);
                wide[i] = DurWide::of(&f);
            }
            None => *self = DurRec::pack(f, wide),
        }
    }
}

/// Duration records and the side table of their wide ones (those of one part of
/// the input, or of one thread of a followed file).
#[derive(Clone, Debug, Default)]
pub struct DurRecs {
    pub recs: Vec<DurRec>,
    pub wide: Vec<DurWide>,
}

impl DurRecs {
    pub fn push(&mut self, f: DurFields) {
        let r = DurRec::pack(f, &mut self.wide);
        self.recs.push(r);
    }

    /// Appends `r` of another list (`wide`: its side table).
    pub fn push_from(&mut self, r: DurRec, wide: &[DurWide]) {
        let r = match r.wide_index() {
            Some(i) => {
                self.wide.push(wide[i]);
                r.wide_at(self.wide.len() - 1)
            }
            None => r,
        };
        self.recs.push(r);
    }

    pub fn len(&self) -> usize {
        self.recs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Room for `n` more records.
    pub fn reserve_exact(&mut self, n: usize) {
        self.recs.reserve_exact(n);
    }

    pub fn view(&self) -> DurSlice<'_> {
        DurSlice {
            recs: &self.recs,
            wide: &self.wide,
        }
    }

    /// See [`Records::place`](super::records::Records::place): offsets and
    /// the ranges of args in the file move by `base`, timestamps by `shift` ns.
    pub fn place(&mut self, base: u64, shift: i64) {
        for r in &mut self.recs {
            r.update(&mut self.wide, |f| {
                f.offset += base;
                f.ts = f.ts.saturating_add(shift);
                f.args = f.args.moved(base);
            });
        }
    }
}

impl FromIterator<DurFields> for DurRecs {
    fn from_iter<I: IntoIterator<Item = DurFields>>(fields: I) -> DurRecs {
        let mut out = DurRecs::default();
        fields.into_iter().for_each(|f| out.push(f));
        out
    }
}

/// Duration records (a slice of them: indexes into it are the records') and
/// the side table their wide ones index.
#[derive(Clone, Copy, Debug)]
pub struct DurSlice<'a> {
    pub recs: &'a [DurRec],
    pub wide: &'a [DurWide],
}

impl Deref for DurSlice<'_> {
    type Target = [DurRec];

    fn deref(&self) -> &[DurRec] {
        self.recs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TB: u64 = 1 << 40;

    fn fields(offset: u64) -> DurFields {
        DurFields {
            offset,
            ts: -5,
            dur: None,
            tts: Some(Ns::new(3)),
            tdur: None,
            thread: ThreadId::new(7),
            name: StrId(2),
            cat: StrId(3),
            kind: DurKind::X,
            args: TextRef::NONE,
            cname: StrId::NONE,
        }
    }

    /// Packs `f` alone and checks it reads back as it was; returns whether the
    /// record is wide.
    fn round_trip(f: DurFields) -> bool {
        let mut wide = Vec::new();
        let r = DurRec::pack(f, &mut wide);
        assert_eq!(r.fields(&wide), f);
        assert_eq!(wide.len(), usize::from(r.is_wide()));
        r.is_wide()
    }

    fn input_args(start: u64, len: u32) -> TextRef {
        TextRef { start, len }
    }

    fn arena_args(at: u64, len: u32) -> TextRef {
        TextRef::in_arena(at, len)
    }

    /// Every combination of the edge values of each packed field reads back
    /// exactly, and is wide exactly when a value does not fit.
    #[test]
    fn edge_values_round_trip() {
        let spans: Vec<(Option<Ns>, bool)> = [
            (None, true),
            (Some(0), true),
            (Some(1), true),
            (Some(u32::MAX as i64 - 1), true),
            (Some(u32::MAX as i64), false),
            (Some(u32::MAX as i64 + 1), false),
            (Some(i64::MAX), false),
            (Some(-1), false),
            (Some(i64::MIN + 1), false),
        ]
        .into_iter()
        .map(|(v, fits)| (Ns::opt(v), fits))
        .collect();
        let after_max = (1 << 18) - 1;
        for offset in [0, 9, TB - 1 - after_max, TB - 1, TB, 1 << 50] {
            let near = |after: u64, len| input_args(offset + after, len);
            let args = [
                (TextRef::NONE, true),
                (near(8, 120), true),
                (near(8, 120).known_compact(), true),
                (near(0, u32::MAX), true),
                (near(after_max, 1), true),
                (near(after_max + 1, 1), false),
                (near(after_max + 1, 1).known_compact(), false),
                // Empty but somewhere: not `NONE`.
                (near(5, 0), true),
                // Before the event (none is).
                (input_args(offset.saturating_sub(1), 4), offset == 0),
                (arena_args(0, 0), true),
                (arena_args(123_456, 77), true),
                (arena_args((1 << 34) - 1, (1 << 16) - 1), true),
                (arena_args(1 << 34, 1), false),
                (arena_args(5, 1 << 16), false),
                (arena_args(5, 1).known_compact(), false),
                // A CTF record's encoded args, in it or not.
                (TextRef::in_ctf(offset + 60, 200), true),
                (TextRef::in_ctf(offset + after_max, u32::MAX), true),
                (TextRef::in_ctf(offset + after_max + 1, 1), false),
                (TextRef::in_ctf(offset + 60, 200).known_compact(), false),
            ];
            for (args, args_fit) in args {
                for &(dur, dur_fits) in &spans {
                    for &(tdur, tdur_fits) in &spans {
                        for cname in [StrId::NONE, StrId(4)] {
                            let f = DurFields {
                                dur,
                                tdur,
                                args,
                                cname,
                                ..fields(offset)
                            };
                            let fits =
                                offset < TB && args_fit && dur_fits && tdur_fits && cname.is_none();
                            assert_eq!(round_trip(f), !fits, "{f:?}");
                        }
                    }
                }
            }
        }
        for kind in DurKind::ALL {
            for offset in [0, TB] {
                assert_eq!(
                    round_trip(DurFields {
                        kind,
                        ..fields(offset)
                    }),
                    offset == TB
                );
            }
        }
        for tts in [None, Some(Ns::new(i64::MIN + 1)), Some(Ns::new(i64::MAX))] {
            round_trip(DurFields { tts, ..fields(1) });
        }
    }

    fn any_ns() -> impl Strategy<Value = Option<Ns>> {
        prop_oneof![
            Just(None),
            (0i64..1 << 33).prop_map(|v| Some(Ns::new(v))),
            any::<i64>().prop_map(|v| Some(Ns::new(v))),
        ]
    }

    fn any_args(offset: u64) -> impl Strategy<Value = TextRef> {
        let start = prop_oneof![
            (0u64..1 << 19).prop_map(move |after| offset + after),
            0u64..1 << 42,
        ];
        prop_oneof![
            Just(TextRef::NONE),
            (start, any::<u32>(), any::<bool>()).prop_map(|(start, len, compact)| {
                let r = TextRef { start, len };
                if compact {
                    r.known_compact()
                } else {
                    r
                }
            }),
            (0u64..1 << 36, 0u32..1 << 17).prop_map(|(at, len)| arena_args(at, len)),
            (0u64..1 << 19, any::<u32>())
                .prop_map(move |(after, len)| TextRef::in_ctf(offset + after, len)),
        ]
    }

    fn any_fields() -> impl Strategy<Value = DurFields> {
        let offset = prop_oneof![0u64..1 << 41, TB - 1000..TB + 1000];
        (
            offset,
            any::<i64>(),
            any_ns(),
            any_ns(),
            any_ns(),
            0usize..5,
            any::<bool>(),
        )
            .prop_flat_map(|(offset, ts, dur, tts, tdur, kind, cname)| {
                any_args(offset).prop_map(move |args| DurFields {
                    offset,
                    ts,
                    dur,
                    tts,
                    tdur,
                    thread: ThreadId::new(kind as u32),
                    name: StrId(1),
                    cat: StrId(2),
                    kind: DurKind::ALL[kind],
                    args,
                    cname: StrId(u32::from(cname) * 5),
                })
            })
    }

    proptest! {
        /// Lists of records read back exactly: as packed, once placed among
        /// several files, once appended to another list one by one, and with
        /// their side table put after another.
        #[test]
        fn lists_round_trip(
            list in prop::collection::vec(any_fields(), 0..40),
            base in prop_oneof![0u64..1000, TB - 500..TB + 500],
            shift in any::<i64>(),
        ) {
            let recs: DurRecs = list.iter().copied().collect();
            let read = |recs: &DurRecs| -> Vec<DurFields> {
                recs.recs.iter().map(|r| r.fields(&recs.wide)).collect()
            };
            prop_assert_eq!(&read(&recs), &list);

            let mut placed = recs.clone();
            placed.place(base, shift);
            let want: Vec<DurFields> = list
                .iter()
                .map(|f| DurFields {
                    offset: f.offset + base,
                    ts: f.ts.saturating_add(shift),
                    args: f.args.moved(base),
                    ..*f
                })
                .collect();
            prop_assert_eq!(read(&placed), want);

            let mut other: DurRecs = list.iter().rev().copied().collect();
            let before = other.len();
            for r in &recs.recs {
                other.push_from(*r, &recs.wide);
            }
            prop_assert_eq!(&read(&other)[before..], &list[..]);

            let mut joined = other.wide.clone();
            let base = joined.len();
            joined.extend_from_slice(&recs.wide);
            let moved: Vec<DurFields> =
                recs.recs.iter().map(|r| r.with_wide_base(base).fields(&joined)).collect();
            prop_assert_eq!(moved, list);
        }
    }
}
