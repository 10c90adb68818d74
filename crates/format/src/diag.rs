//! Diagnostics: every repair or anomaly a reader or the model meets, counted by kind.
//!
//! Import never throws on one bad event: it records the occurrence here and goes on,
//! like Perfetto's stats table. Each kind has a [`Severity`]; the kinds, their
//! severities and why are listed in `docs/reading-rules.md`.
//!
//! Every occurrence's byte offset is kept, compactly (a varint of the distance from the
//! previous one: one to three bytes each in practice), so `tables --table diagnostics`
//! can list them all. Examples are bounded: the first [`EXAMPLES_KEPT`] occurrences
//! of each kind by offset keep theirs, later ones only their offset.
//!
//! An example that is an excerpt of the input can be cut late ([`Diagnostics::add_excerpt`],
//! then [`Diagnostics::cut_excerpts`]): the model's build steps run after the parse has
//! released the file's pages, and cutting an excerpt for every candidate there (up to
//! [`EXAMPLES_KEPT`] per kind per thread) faulted tens of megabytes of them back in.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

macro_rules! diag_kinds {
    ($($variant:ident => $name:literal, $what:literal;)*) => {
        /// The kinds of anomaly (listed in `docs/reading-rules.md`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DiagKind { $($variant),* }

        impl DiagKind {
            pub const ALL: &'static [DiagKind] = &[$(DiagKind::$variant),*];

            /// The stable snake_case name used in `stats --json` and `validate`.
            pub fn as_str(self) -> &'static str {
                match self { $(DiagKind::$variant => $name),* }
            }

            /// One line saying what happened, for humans.
            pub fn describe(self) -> &'static str {
                match self { $(DiagKind::$variant => $what),* }
            }
        }
    };
}

diag_kinds! {
    Truncated => "truncated", "the input ends inside the trace; every complete event before it was read";
    TrailingComma => "trailing_comma", "a comma before a closing bracket or brace was ignored";
    Comment => "comment", "a // or /* */ comment was ignored";
    EmptyEvent => "empty_event", "an empty {} element was skipped";
    NumericString => "numeric_string", "a number written as a string was read as the number";
    MissingTs => "missing_ts", "an event without ts was placed at 0";
    UnknownPhase => "unknown_phase", "an event with an unknown or missing ph was kept as an other event";
    UnsortedThread => "unsorted_thread", "a thread's B/E events were not in time order and were sorted";
    MisplacedEnd => "misplaced_end", "an E closed an outer slice by name; the slices above it ended with it";
    EndNameMismatch => "end_name_mismatch", "an E's name matched no open slice; it closed the innermost";
    UnmatchedEnd => "unmatched_end", "an end event had nothing open to close";
    Overlap => "overlap", "a slice overlaps a sibling improperly and was put on an extra row";
    UnknownScope => "unknown_scope", "an instant scope other than t, p, g was read as thread scope";
    BadId => "bad_id", "an async event's id or id2 was missing, malformed or doubled";
    UnboundFlow => "unbound_flow", "a flow event could not be bound to a slice";
    BadCounterValue => "bad_counter_value", "a counter value that is not a number was dropped";
    ProfileLengthMismatch => "profile_length_mismatch", "a profile chunk's samples and timeDeltas differ in length";
    BadDisplayTimeUnit => "bad_display_time_unit", "displayTimeUnit is neither ms nor ns";
    NonStringSystemTrace => "non_string_system_trace", "systemTraceEvents is not a string";
    BadField => "bad_field", "a field had a value of the wrong type and was kept as written";
    SyntaxError => "syntax_error", "an event that is not valid JSON was skipped";
    TooDeep => "too_deep", "an event nested deeper than 512 levels (the reader's limit) was skipped";
    InvalidUtf8 => "invalid_utf8", "bytes that are not UTF-8 were replaced with U+FFFD";
    BareEvents => "bare_events", "events outside of an array or traceEvents were read as a list";
    TrailingContent => "trailing_content", "text after the end of the trace was ignored";
    DuplicateKey => "duplicate_key", "a key appeared twice in one event; the last value was used";
    UnmatchedAsyncStep => "unmatched_async_step", "an async step or instant had no open operation";
    DuplicateObject => "duplicate_object", "an object was created again while alive; the first ended there";
    UnmatchedObject => "unmatched_object", "an object was deleted without being created";
    BadProfile => "bad_profile", "a CPU profile chunk or sample could not be read in full";
    BadStackFrame => "bad_stack_frame", "a sample names a stack frame that does not exist";
    BadMetadata => "bad_metadata", "a metadata event's args lack the expected value";
}

/// How much a diagnostic matters to someone who reads the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// What real producers routinely write; read as its writer meant, nothing lost.
    Info,
    /// Against the format; repaired by a rule that may not be what the writer meant.
    Warning,
    /// Something the writer wrote was dropped or made up: the trace is damaged.
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl DiagKind {
    /// The kind's severity (why each: `docs/reading-rules.md`, "Diagnostics"). No
    /// wildcard: a new kind must be given one.
    pub fn severity(self) -> Severity {
        use DiagKind::*;
        match self {
            SyntaxError | InvalidUtf8 | TrailingContent | MissingTs | BadField
            | BadCounterValue | TooDeep => Severity::Error,
            Truncated
            | BareEvents
            | DuplicateKey
            | UnknownPhase
            | MisplacedEnd
            | EndNameMismatch
            | UnmatchedEnd
            | Overlap
            | UnknownScope
            | BadId
            | UnmatchedAsyncStep
            | DuplicateObject
            | ProfileLengthMismatch
            | BadProfile
            | BadStackFrame => Severity::Warning,
            TrailingComma | Comment | EmptyEvent | NumericString | UnsortedThread | UnboundFlow
            | UnmatchedObject | BadDisplayTimeUnit | NonStringSystemTrace | BadMetadata => {
                Severity::Info
            }
        }
    }
}

impl fmt::Display for DiagKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One kind's summary: how often it happened, and where first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagKind,
    pub count: u64,
    /// Byte offset of the first occurrence in the (decompressed) input.
    pub offset: u64,
    /// A short excerpt or description of the first occurrence.
    pub example: String,
}

impl Diagnostic {
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

/// One occurrence, as `tables --table diagnostics` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence<'a> {
    pub kind: DiagKind,
    pub offset: u64,
    /// `None` past the first [`EXAMPLES_KEPT`] occurrences of the kind.
    pub example: Option<&'a str>,
}

/// The diagnostics table: per kind, a summary, every occurrence's offset and the
/// first occurrences' examples.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    entries: BTreeMap<DiagKind, Entry>,
    /// Every occurrence by offset (kind, offset, example index), built on first use so
    /// a table can read them row by row; dropped by any change.
    index: OnceLock<Vec<(DiagKind, u64, u32)>>,
}

#[derive(Clone, Debug)]
struct Entry {
    summary: Diagnostic,
    offsets: Offsets,
    /// The [`EXAMPLES_KEPT`] smallest offsets with their examples, sorted by offset
    /// (equal offsets in the order they were added).
    examples: Vec<Example>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Example {
    offset: u64,
    text: String,
    /// `text` is only what goes before the input's excerpt at `offset`, which
    /// [`Diagnostics::cut_excerpts`] adds.
    excerpt_pending: bool,
}

/// Longest example kept, in bytes.
const EXAMPLE_MAX: usize = 160;

/// Occurrences of one kind that keep their example (the first ones by offset); the
/// others keep only their offset, so a trace with millions of the same repair costs
/// a few bytes per occurrence, not an excerpt each.
pub const EXAMPLES_KEPT: usize = 100;

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one occurrence. `example` is only materialised when it is kept.
    pub fn add(&mut self, kind: DiagKind, offset: u64, example: impl FnOnce() -> String) {
        self.add_n(kind, 1, offset, example)
    }

    /// Records `n` occurrences at one offset (one example for them all).
    pub fn add_n(&mut self, kind: DiagKind, n: u64, offset: u64, example: impl FnOnce() -> String) {
        self.add_kept(kind, n, offset, || Example {
            offset,
            text: shorten(example()),
            excerpt_pending: false,
        })
    }

    /// Records one occurrence whose example is `before` then the input's excerpt at
    /// `offset`, cut later by [`Diagnostics::cut_excerpts`] (only for the examples
    /// kept by then, so the input is not read for the others).
    pub fn add_excerpt(&mut self, kind: DiagKind, offset: u64, before: impl FnOnce() -> String) {
        self.add_kept(kind, 1, offset, || Example {
            offset,
            text: before(),
            excerpt_pending: true,
        })
    }

    /// Cuts the excerpts of the examples recorded by [`Diagnostics::add_excerpt`]:
    /// `excerpt` gives the input's text at an offset.
    pub fn cut_excerpts(&mut self, excerpt: impl Fn(u64) -> String) {
        for e in self.entries.values_mut() {
            for x in e.examples.iter_mut().filter(|x| x.excerpt_pending) {
                let before = std::mem::take(&mut x.text);
                x.text = shorten(before + &excerpt(x.offset));
                x.excerpt_pending = false;
            }
            if let Some(first) = e.examples.first() {
                e.summary.example.clone_from(&first.text);
            }
        }
    }

    fn add_kept(&mut self, kind: DiagKind, n: u64, offset: u64, example: impl FnOnce() -> Example) {
        if n == 0 {
            return;
        }
        self.index.take();
        let e = self.entries.entry(kind).or_insert_with(|| Entry {
            summary: Diagnostic {
                kind,
                count: 0,
                offset,
                example: String::new(),
            },
            offsets: Offsets::default(),
            examples: Vec::new(),
        });
        e.summary.count += n;
        for _ in 0..n {
            e.offsets.push(offset);
        }
        e.keep_example(offset, example);
    }

    /// Adds another table's occurrences (for merging parts read in parallel).
    pub fn merge(&mut self, other: Diagnostics) {
        self.index.take();
        for (kind, o) in other.entries {
            let Some(e) = self.entries.get_mut(&kind) else {
                self.entries.insert(kind, o);
                continue;
            };
            e.summary.count += o.summary.count;
            for off in o.offsets.iter() {
                e.offsets.push(off);
            }
            for x in o.examples {
                e.keep_example(x.offset, move || x);
            }
        }
    }

    /// Drops every occurrence of `kind` (a followed file's missing end is not news);
    /// returns how many there were.
    pub fn remove(&mut self, kind: DiagKind) -> u64 {
        self.index.take();
        self.entries.remove(&kind).map_or(0, |e| e.summary.count)
    }

    /// The occurrences before byte `end` (a followed file's partial last event is
    /// read again once it is complete).
    pub fn before(self, end: u64) -> Diagnostics {
        let mut out = Diagnostics::new();
        for (kind, e) in self.entries {
            let mut offsets = Offsets::default();
            let mut count = 0;
            for off in e.offsets.iter().filter(|&o| o < end) {
                offsets.push(off);
                count += 1;
            }
            if count == 0 {
                continue;
            }
            let examples: Vec<_> = e.examples.into_iter().filter(|x| x.offset < end).collect();
            let mut summary = Diagnostic { count, ..e.summary };
            if let Some(x) = examples.first() {
                summary.offset = x.offset;
                summary.example.clone_from(&x.text);
            }
            out.entries.insert(
                kind,
                Entry {
                    summary,
                    offsets,
                    examples,
                },
            );
        }
        out
    }

    /// The same occurrences for one file among several read as one trace: offsets
    /// move by `base` (the file's place among them) and examples start with `name`.
    pub fn placed(self, base: u64, name: &str) -> Diagnostics {
        let mut out = Diagnostics::new();
        for (kind, e) in self.entries {
            let mut offsets = Offsets::default();
            for off in e.offsets.iter() {
                offsets.push(off + base);
            }
            let named = |x: String| format!("{name}: {x}");
            let summary = Diagnostic {
                offset: e.summary.offset + base,
                example: named(e.summary.example),
                ..e.summary
            };
            let examples = e
                .examples
                .into_iter()
                .map(|x| Example {
                    offset: x.offset + base,
                    text: named(x.text),
                    ..x
                })
                .collect();
            out.entries.insert(
                kind,
                Entry {
                    summary,
                    offsets,
                    examples,
                },
            );
        }
        out
    }

    pub fn count(&self, kind: DiagKind) -> u64 {
        self.entries.get(&kind).map_or(0, |e| e.summary.count)
    }

    pub fn get(&self, kind: DiagKind) -> Option<&Diagnostic> {
        self.entries.get(&kind).map(|e| &e.summary)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of kinds present.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Occurrences of every kind of this severity.
    pub fn count_severity(&self, severity: Severity) -> u64 {
        self.entries
            .values()
            .filter(|e| e.summary.kind.severity() == severity)
            .map(|e| e.summary.count)
            .sum()
    }

    /// The highest severity present.
    pub fn worst(&self) -> Option<Severity> {
        self.entries.keys().map(|k| k.severity()).max()
    }

    /// Summaries ordered by first offset, then kind.
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<_> = self.entries.values().map(|e| &e.summary).collect();
        v.sort_by_key(|d| (d.offset, d.kind));
        v
    }

    /// Every occurrence of one kind, by offset.
    pub fn occurrences_of(&self, kind: DiagKind) -> Vec<Occurrence<'_>> {
        let Some(e) = self.entries.get(&kind) else {
            return Vec::new();
        };
        e.by_offset()
            .into_iter()
            .map(|(offset, k)| Occurrence {
                kind,
                offset,
                example: e.examples.get(k as usize).map(|x| x.text.as_str()),
            })
            .collect()
    }

    /// Every occurrence of every kind, by offset, then kind.
    pub fn occurrences(&self) -> Vec<Occurrence<'_>> {
        (0..self.occurrence_count())
            .map(|i| self.occurrence(i))
            .collect()
    }

    /// Occurrences of every kind.
    pub fn occurrence_count(&self) -> usize {
        self.entries
            .values()
            .map(|e| e.summary.count as usize)
            .sum()
    }

    /// The `i`-th occurrence by offset, then kind (`i < occurrence_count()`); the
    /// order is built once (16 bytes an occurrence) and kept until the next change.
    pub fn occurrence(&self, i: usize) -> Occurrence<'_> {
        let index = self.index.get_or_init(|| {
            let mut all: Vec<(DiagKind, u64, u32)> = self
                .entries
                .iter()
                .flat_map(|(&kind, e)| e.by_offset().into_iter().map(move |(o, k)| (kind, o, k)))
                .collect();
            all.sort_by_key(|&(kind, offset, k)| (offset, kind, k));
            all
        });
        let (kind, offset, k) = index[i];
        Occurrence {
            kind,
            offset,
            example: self.entries[&kind]
                .examples
                .get(k as usize)
                .map(|x| x.text.as_str()),
        }
    }
}

impl Entry {
    /// Offsets in order, each with its rank among the kind's occurrences: the k-th
    /// occurrence by offset has the k-th kept example (the kept ones are the first).
    fn by_offset(&self) -> Vec<(u64, u32)> {
        let mut offsets: Vec<u64> = self.offsets.iter().collect();
        offsets.sort_unstable();
        offsets
            .into_iter()
            .enumerate()
            .map(|(k, o)| (o, k.min(u32::MAX as usize) as u32))
            .collect()
    }

    /// Keeps `example` if `offset` is among the smallest [`EXAMPLES_KEPT`] seen.
    fn keep_example(&mut self, offset: u64, example: impl FnOnce() -> Example) {
        let full = self.examples.len() >= EXAMPLES_KEPT;
        if full && self.examples.last().is_some_and(|x| x.offset <= offset) {
            return;
        }
        let at = self.examples.partition_point(|x| x.offset <= offset);
        self.examples.insert(at, example());
        if full {
            self.examples.pop();
        }
        if at == 0 {
            let first = &self.examples[0];
            self.summary.offset = first.offset;
            self.summary.example.clone_from(&first.text);
        }
    }
}

/// Equal when the same occurrences were recorded, in whatever order (parts read in
/// parallel add them in another order than one sequential pass).
impl PartialEq for Diagnostics {
    fn eq(&self, other: &Self) -> bool {
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|((ka, a), (kb, b))| {
                    let sorted = |e: &Entry| {
                        let mut offs: Vec<u64> = e.offsets.iter().collect();
                        offs.sort_unstable();
                        offs
                    };
                    ka == kb
                        && a.summary == b.summary
                        && a.examples == b.examples
                        && sorted(a) == sorted(b)
                })
    }
}

impl Eq for Diagnostics {}

/// Byte offsets, each stored as the zigzag LEB128 varint of its distance from the
/// previous one.
#[derive(Clone, Debug, Default)]
struct Offsets {
    bytes: Vec<u8>,
    last: u64,
}

impl Offsets {
    fn push(&mut self, offset: u64) {
        let delta = offset.wrapping_sub(self.last) as i64;
        let mut z = ((delta << 1) ^ (delta >> 63)) as u64;
        self.last = offset;
        loop {
            let b = (z & 0x7f) as u8;
            z >>= 7;
            if z == 0 {
                self.bytes.push(b);
                return;
            }
            self.bytes.push(b | 0x80);
        }
    }

    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let mut pos = 0;
        let mut last = 0u64;
        std::iter::from_fn(move || {
            if pos >= self.bytes.len() {
                return None;
            }
            let (mut z, mut shift) = (0u64, 0);
            loop {
                let b = self.bytes[pos];
                pos += 1;
                z |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b & 0x80 == 0 {
                    break;
                }
            }
            let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
            last = last.wrapping_add(delta as u64);
            Some(last)
        })
    }
}

/// Cuts an example to a readable length on a char boundary, on one line.
pub fn shorten(s: String) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let collapsed = one_line.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.len() <= EXAMPLE_MAX {
        return collapsed;
    }
    let mut end = EXAMPLE_MAX;
    while !collapsed.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &collapsed[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_offset_wins_and_counts_add() {
        let mut a = Diagnostics::new();
        a.add(DiagKind::Comment, 50, || "second".into());
        a.add(DiagKind::Comment, 10, || "first".into());
        let mut b = Diagnostics::new();
        b.add(DiagKind::Comment, 5, || "earliest".into());
        b.add(DiagKind::Truncated, 99, || "end".into());
        a.merge(b);
        let c = a.get(DiagKind::Comment).unwrap();
        assert_eq!((c.count, c.offset, c.example.as_str()), (3, 5, "earliest"));
        assert_eq!(a.count(DiagKind::Truncated), 1);
        assert_eq!(a.sorted()[0].kind, DiagKind::Comment);
    }

    #[test]
    fn every_occurrence_is_listed_by_offset_with_the_first_examples() {
        let mut a = Diagnostics::new();
        let n = EXAMPLES_KEPT as u64 + 50;
        // Offsets added out of order, with one far jump back, as parallel parts do.
        for k in (0..n).rev() {
            a.add(DiagKind::UnboundFlow, 1_000 + k * 300, || {
                format!("flow {k}")
            });
        }
        a.add(DiagKind::Comment, 7, || "c".into());
        a.add(DiagKind::UnboundFlow, u64::MAX / 2, || "far".into());
        let occ = a.occurrences_of(DiagKind::UnboundFlow);
        assert_eq!(occ.len() as u64, n + 1);
        assert_eq!(a.count(DiagKind::UnboundFlow), n + 1);
        assert_eq!((occ[0].offset, occ[0].example), (1_000, Some("flow 0")));
        let last_kept = &occ[EXAMPLES_KEPT - 1];
        assert_eq!(
            last_kept.example,
            Some(format!("flow {}", EXAMPLES_KEPT - 1).as_str())
        );
        assert_eq!(last_kept.offset, 1_000 + (EXAMPLES_KEPT as u64 - 1) * 300);
        assert_eq!(occ[EXAMPLES_KEPT].example, None);
        assert_eq!(occ[n as usize].offset, u64::MAX / 2);
        let all = a.occurrences();
        assert_eq!(all.len() as u64, n + 2);
        assert_eq!((all[0].kind, all[0].offset), (DiagKind::Comment, 7));
        let s = a.get(DiagKind::UnboundFlow).unwrap();
        assert_eq!((s.offset, s.example.as_str()), (1_000, "flow 0"));
    }

    #[test]
    fn occurrences_cost_a_few_bytes_each() {
        let mut a = Diagnostics::new();
        for k in 0..1_000_000u64 {
            a.add(DiagKind::UnboundFlow, 50 + k * 180, String::new);
        }
        let e = &a.entries[&DiagKind::UnboundFlow];
        assert_eq!(
            e.offsets.bytes.len(),
            1 + 2 * 999_999,
            "180 apart: two bytes each"
        );
        assert_eq!(e.examples.len(), EXAMPLES_KEPT);
        assert_eq!(
            a.occurrences_of(DiagKind::UnboundFlow)[999_999].offset,
            50 + 999_999 * 180
        );
    }

    #[test]
    fn merged_parts_equal_one_pass_whatever_the_order() {
        let mut one = Diagnostics::new();
        let (mut p1, mut p2) = (Diagnostics::new(), Diagnostics::new());
        for k in 0..300u64 {
            one.add(DiagKind::Overlap, k * 10, || format!("{k}"));
            let part = if k % 3 == 0 { &mut p2 } else { &mut p1 };
            part.add(DiagKind::Overlap, k * 10, || format!("{k}"));
        }
        p2.merge(p1);
        assert_eq!(p2, one);
        p2.add(DiagKind::Overlap, 5, || "5".into());
        assert_ne!(p2, one);
    }

    #[test]
    fn excerpts_are_cut_once_for_the_kept_examples_across_parts() {
        let text = |o: u64| format!("event at {o} {}", "x".repeat(200));
        // Three parts (threads) of 150 occurrences each, interleaved by offset.
        let (mut eager, mut late) = (Diagnostics::new(), Diagnostics::new());
        for p in 0..3u64 {
            let (mut e, mut l) = (Diagnostics::new(), Diagnostics::new());
            for k in 0..150u64 {
                let off = 100 + (k * 3 + p) * 40;
                e.add(DiagKind::Overlap, off, || {
                    format!("thread {p}: {}", text(off))
                });
                l.add_excerpt(DiagKind::Overlap, off, || format!("thread {p}: "));
            }
            eager.merge(e);
            late.merge(l);
        }
        let cut = std::cell::Cell::new(0);
        late.cut_excerpts(|o| {
            cut.set(cut.get() + 1);
            text(o)
        });
        assert_eq!(
            cut.get(),
            EXAMPLES_KEPT,
            "only the kept examples read the input"
        );
        assert_eq!(late, eager);
        let occ = late.occurrences_of(DiagKind::Overlap);
        assert_eq!(occ.len(), 450);
        assert_eq!(
            occ[0].example,
            eager.occurrences_of(DiagKind::Overlap)[0].example
        );
        assert!(occ[0]
            .example
            .unwrap()
            .starts_with("thread 0: event at 100 xxx"));
        assert!(occ[0].example.unwrap().ends_with('…'));
        assert!(occ[EXAMPLES_KEPT - 1].example.is_some());
        assert_eq!(occ[EXAMPLES_KEPT].example, None);
        let s = late.get(DiagKind::Overlap).unwrap();
        assert_eq!(
            (s.offset, s.example.as_str()),
            (100, occ[0].example.unwrap())
        );
        late.cut_excerpts(|_| unreachable!("every excerpt is cut once"));
    }

    #[test]
    fn severities() {
        use DiagKind::*;
        assert_eq!(SyntaxError.severity(), Severity::Error);
        assert_eq!(EndNameMismatch.severity(), Severity::Warning);
        assert_eq!(UnboundFlow.severity(), Severity::Info);
        let mut a = Diagnostics::new();
        a.add(UnboundFlow, 1, String::new);
        a.add(UnboundFlow, 2, String::new);
        assert_eq!(a.worst(), Some(Severity::Info));
        a.add(Overlap, 3, String::new);
        assert_eq!(a.worst(), Some(Severity::Warning));
        assert_eq!(
            Severity::ALL.map(|s| a.count_severity(s)),
            [0, 1, 2],
            "error, warning, info"
        );
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = DiagKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), DiagKind::ALL.len());
    }
}
