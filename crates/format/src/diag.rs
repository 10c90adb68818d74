//! Diagnostics: every repair or anomaly a reader or the model meets, counted by kind.
//!
//! Import never throws on one bad event: it records `{kind, count, first offset,
//! example}` here and goes on, like Perfetto's stats table.

use std::collections::BTreeMap;
use std::fmt;

macro_rules! diag_kinds {
    ($($variant:ident => $name:literal, $what:literal;)*) => {
        /// The kinds of anomaly (names from `spec/reading-rules.md` section 12).
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

impl fmt::Display for DiagKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One kind's entry: how often it happened, and where first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagKind,
    pub count: u64,
    /// Byte offset of the first occurrence in the (decompressed) input.
    pub offset: u64,
    /// A short excerpt or description of the first occurrence.
    pub example: String,
}

/// The diagnostics table: one entry per kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    entries: BTreeMap<DiagKind, Diagnostic>,
}

/// Longest example kept, in bytes.
const EXAMPLE_MAX: usize = 160;

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one occurrence. `example` is only materialised for the first one.
    pub fn add(&mut self, kind: DiagKind, offset: u64, example: impl FnOnce() -> String) {
        self.add_n(kind, 1, offset, example)
    }

    pub fn add_n(&mut self, kind: DiagKind, n: u64, offset: u64, example: impl FnOnce() -> String) {
        if n == 0 {
            return;
        }
        match self.entries.get_mut(&kind) {
            Some(e) => {
                e.count += n;
                if offset < e.offset {
                    e.offset = offset;
                    e.example = shorten(example());
                }
            }
            None => {
                self.entries.insert(
                    kind,
                    Diagnostic {
                        kind,
                        count: n,
                        offset,
                        example: shorten(example()),
                    },
                );
            }
        }
    }

    /// Adds another table's entries (for merging chunks read in parallel).
    pub fn merge(&mut self, other: Diagnostics) {
        for (_, d) in other.entries {
            let ex = d.example;
            self.add_n(d.kind, d.count, d.offset, move || ex);
        }
    }

    pub fn count(&self, kind: DiagKind) -> u64 {
        self.entries.get(&kind).map_or(0, |e| e.count)
    }

    pub fn get(&self, kind: DiagKind) -> Option<&Diagnostic> {
        self.entries.get(&kind)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Entries ordered by first offset, then kind.
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<_> = self.entries.values().collect();
        v.sort_by_key(|d| (d.offset, d.kind));
        v
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
    fn names_are_unique() {
        let mut names: Vec<_> = DiagKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), DiagKind::ALL.len());
    }
}
